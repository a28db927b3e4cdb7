package io.loadgate.chaos;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/** One fault played against the cluster: it loads keys of its own and injects its fault at its moment. */
record Scenario(String name, String fault, boolean inShortMode, Set<String> accepted, Body body) {
    /** A fault the system must ride out: the run succeeds, if later than without it. */
    static final Set<String> SURVIVES = Set.of("SUCCESS");

    /**
     * @param accepted the outcomes of a key's newest run that are correct under this fault: SUCCESS where the fault
     *                 can be survived, or also an honest failure where it cannot (a snapshot gone with its holder)
     */
    Scenario {
        requireNonNull(name, "name is null");
        requireNonNull(fault, "fault is null");
        accepted = Set.copyOf(accepted);
        requireNonNull(body, "body is null");
    }

    Scenario(String name, String fault, boolean inShortMode, Body body) {
        this(name, fault, inShortMode, SURVIVES, body);
    }

    interface Body {
        void play(Stage stage) throws Exception;
    }

    /**
     * What a scenario plays on: the cluster, fresh business keys with their source rows, and a notebook of what
     * happened (the moment a fault was injected at, or that the moment never came).
     */
    static final class Stage {
        /** How long a scenario waits for the moment it injects its fault at. */
        static final Duration MOMENT_TIMEOUT = Duration.ofSeconds(90);

        final Cluster cluster;
        final List<String> keys = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        private final long rowsPerKey;
        private final int firstKeyIndex;

        Stage(Cluster cluster, int firstKeyIndex, long rowsPerKey) {
            this.cluster = cluster;
            this.firstKeyIndex = firstKeyIndex;
            this.rowsPerKey = rowsPerKey;
        }

        /** A business day no other scenario uses, with {@code rowsPerKey} source rows. */
        String newKey() throws SQLException {
            int index = firstKeyIndex + keys.size();
            String day = LocalDate.of(2026, 1, 1).plusDays(index).toString();
            cluster.databases.insertDay(day, firstId(index, 0), rowsPerKey);
            keys.add(day);
            return day;
        }

        /** The next version of a key's source rows (what a source does between two runs of one key). */
        void changeSource(String key) throws SQLException {
            int index = firstKeyIndex + keys.indexOf(key);
            cluster.databases.changeDay(key, firstId(index, 1), rowsPerKey / 10);
            note("source of " + key + " changed: updates, deletes and " + rowsPerKey / 10 + " new rows");
        }

        private static long firstId(int keyIndex, int version) {
            return keyIndex * 10_000_000L + version * 5_000_000L + 1;
        }

        /** The newest run of {@code key} once {@code condition} holds; notes a missed moment and returns empty. */
        Optional<JsonNode> await(String key, String moment, Predicate<JsonNode> condition, Duration timeout)
                throws InterruptedException {
            Optional<JsonNode> run = cluster.awaitRun(key, condition, timeout);
            if (run.isEmpty()) {
                Optional<JsonNode> now = cluster.awaitRun(key, r -> true, Duration.ZERO);
                note("moment missed: " + moment + " never came for " + key + " (run is "
                        + now.map(r -> r.path("status").asText()).orElse("absent") + ")");
            }
            return run;
        }

        Optional<JsonNode> await(String key, String moment, Predicate<JsonNode> condition)
                throws InterruptedException {
            return await(key, moment, condition, MOMENT_TIMEOUT);
        }

        void note(String line) {
            notes.add(line);
            System.err.println("chaos:   " + line);
        }
    }
}
