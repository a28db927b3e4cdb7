package io.loadgate.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A scenario's result, judged once its runs have ended (or their time ran out): per key, the newest run's outcome
 * against the ones the scenario accepts, the target partition
 * against the source by row digests; the runs left active (stuck, a PUBLISH_UNKNOWN included: nothing probed it);
 * and every publish the target records against the ledger's account of that run.
 */
record Verdict(String scenario, int runs, String outcomes, long rowsCompared, long lost, long doubled, int stuck,
               List<String> violations, List<String> notes, Duration took) {

    boolean passed() {
        return lost == 0 && doubled == 0 && stuck == 0 && violations.isEmpty();
    }

    static Verdict judge(Scenario scenario, Scenario.Stage stage, Duration took) throws SQLException {
        Cluster cluster = stage.cluster;
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        int runs = 0;
        int stuck = 0;
        long compared = 0;
        long lost = 0;
        long doubled = 0;
        for (String key : stage.keys) {
            List<JsonNode> keyRuns = cluster.ledger.runs(Cluster.JOB_KEY, key);
            runs += keyRuns.size();
            if (keyRuns.isEmpty()) {
                violations.add(key + ": no run");
            } else if (!LedgerView.ACTIVE.contains(keyRuns.get(0).path("status").asText())
                    && !scenario.accepted().contains(keyRuns.get(0).path("status").asText())) {
                violations.add(key + ": the newest run ended " + keyRuns.get(0).path("status").asText()
                        + ", expected " + String.join(" or ", new TreeSet<>(scenario.accepted())));
            }
            Map<UUID, String> statusById = new TreeMap<>();
            Optional<UUID> latestSuccess = Optional.empty();
            boolean published = false;
            for (JsonNode run : keyRuns) { // newest first
                String status = run.path("status").asText();
                UUID id = UUID.fromString(run.path("runId").asText());
                statusById.put(id, status);
                outcomes.merge(status, 1, Integer::sum);
                published |= LedgerView.PUBLISHED_OR_LATER.contains(status);
                if (LedgerView.ACTIVE.contains(status)) {
                    stuck++;
                    violations.add(key + ": run " + id + " still " + status + ("PUBLISH_UNKNOWN".equals(status)
                            ? " (never probed)" : " when the scenario's time ran out"));
                }
                if ("SUCCESS".equals(status) && latestSuccess.isEmpty()) {
                    latestSuccess = Optional.of(id);
                }
            }
            // The source changes only before the run that must win, so a key the ledger calls published must hold
            // the source as it is now, and a key it does not must hold nothing.
            Map<String, Long> expected = published ? cluster.databases.sourceRows(key) : Map.of();
            RowComparison rows = RowComparison.of(expected, cluster.databases.targetRows(key));
            compared += rows.expected();
            lost += rows.lost();
            doubled += rows.doubled();
            List<UUID> publishes = cluster.databases.publishedRuns(key);
            for (UUID publish : publishes) {
                String status = statusById.getOrDefault(publish, "unknown to the ledger");
                if (!LedgerView.PUBLISHED_OR_LATER.contains(status)) {
                    violations.add(key + ": the target holds a publish of run " + publish + ", which the ledger has"
                            + " as " + status);
                }
            }
            if (latestSuccess.isPresent() && !publishes.isEmpty()
                    && !publishes.get(publishes.size() - 1).equals(latestSuccess.get())) {
                violations.add(key + ": the target's last publish is run " + publishes.get(publishes.size() - 1)
                        + ", the ledger's latest success is " + latestSuccess.get());
            }
        }
        String summary = outcomes.entrySet().stream()
                .map(e -> e.getValue() == 1 ? e.getKey() : e.getKey() + " x" + e.getValue())
                .collect(Collectors.joining(", "));
        return new Verdict(scenario.name(), runs, summary, compared, lost, doubled, stuck, List.copyOf(violations),
                List.copyOf(stage.notes), took);
    }
}
