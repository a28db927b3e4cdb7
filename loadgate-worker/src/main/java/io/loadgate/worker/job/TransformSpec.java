package io.loadgate.worker.job;

import java.math.BigDecimal;
import java.util.List;

/**
 * The job's single-row transforms, applied in order to every row between the source and the staged chunks, and
 * how many rows they may reject before the run fails. A rejected row is never dropped: it is kept, with its
 * original values and the reason, in the partition's rejects chunk, and counted by the ledger.
 *
 * <p>The limit is {@code max_rejected} rows or {@code max_rejected_ratio} of the source rows, never both; with
 * neither, no row may be rejected (a check that rejects fails the run, and its rows are there to read).
 */
public record TransformSpec(List<TransformStep> steps, Long maxRejected, BigDecimal maxRejectedRatio) {
    public static final TransformSpec NONE = new TransformSpec(null, null, null);

    public TransformSpec {
        steps = steps == null ? List.of() : List.copyOf(steps);
        for (int i = 1; i < steps.size(); i++) {
            if (steps.get(i).mapper() != null) {
                // The mapper turns lines into rows: every other step applies to rows, so it can only come first.
                throw new IllegalArgumentException("transform.steps[" + i + "]: a mapper must be the first step");
            }
        }
        if (maxRejected != null && maxRejectedRatio != null) {
            throw new IllegalArgumentException("name one of max_rejected and max_rejected_ratio, not both");
        }
        if (maxRejected != null && maxRejected < 0) {
            throw new IllegalArgumentException("max_rejected must not be negative, got " + maxRejected);
        }
        if (maxRejectedRatio != null && (maxRejectedRatio.signum() < 0 || maxRejectedRatio.compareTo(BigDecimal.ONE) > 0)) {
            throw new IllegalArgumentException("max_rejected_ratio must be between 0 and 1, got " + maxRejectedRatio.toPlainString());
        }
    }

    /** The job's mapper (its first step), or null when its rows are the source's own. */
    public TransformStep.Mapper mapper() {
        return steps.isEmpty() ? null : steps.get(0).mapper();
    }

    /** How many of {@code sourceRows} may be rejected. */
    public long allowedRejects(long sourceRows) {
        if (maxRejected != null) {
            return maxRejected;
        }
        if (maxRejectedRatio != null) {
            return maxRejectedRatio.multiply(BigDecimal.valueOf(sourceRows)).longValue();
        }
        return 0;
    }
}
