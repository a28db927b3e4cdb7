package io.loadgate.ledger.sweeper;

import java.util.List;

/**
 * What one tick did. {@code ran} is false when another sweeper held the tick; {@code failedRules} names the rules
 * whose savepoint was rolled back (the others still committed).
 */
public record SweepReport(boolean ran, int stalePartitionsTimedOut, int partitionsReissued, int runsTimedOut,
                          int dispatchesRequeued, int dispatchesDead, int staleAlerts, int publishUnknown,
                          int validationsRegiven, int manifestsOverdue, int sourceMetricsOverdue,
                          List<String> failedRules) {
    public SweepReport {
        failedRules = List.copyOf(failedRules);
    }

    static SweepReport skipped() {
        return new SweepReport(false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    public int changes() {
        return stalePartitionsTimedOut + partitionsReissued + runsTimedOut + dispatchesRequeued + dispatchesDead
                + staleAlerts + publishUnknown + validationsRegiven + manifestsOverdue + sourceMetricsOverdue;
    }
}
