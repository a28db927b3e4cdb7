package io.loadgate.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The chaos suite: starts the cluster, plays every scenario, judges each once its runs have ended, and prints one
 * table. Exit 0 when every scenario lost, doubled and left stuck nothing and broke no invariant; 1 otherwise.
 *
 * <pre>chaos/run [--short] [--only NAME,...] [--rows N] [--dir DIR] [--pg HOST:PORT]</pre>
 */
public final class Chaos {
    private static final String MARKER = ".loadgate-chaos";

    private Chaos() {
    }

    public static void main(String[] args) throws Exception {
        Path root = null;
        boolean shortMode = false;
        Set<String> only = Set.of();
        Long rows = null;
        Path dir = Path.of("/tmp/loadgate-chaos");
        String pg = "127.0.0.1:5432";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--root" -> root = Path.of(args[++i]);
                case "--short" -> shortMode = true;
                case "--only" -> only = Set.of(args[++i].split(","));
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--pg" -> pg = args[++i];
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (root == null || !Files.isRegularFile(root.resolve("loadgate-cli/target/loadgate-cli.jar"))) {
            usage("--root must be the project's directory, with the distribution built (chaos/run does both)");
        }
        List<Scenario> scenarios = new ArrayList<>();
        for (Scenario scenario : Scenarios.all()) {
            if (only.isEmpty() ? !shortMode || scenario.inShortMode() : only.contains(scenario.name())) {
                scenarios.add(scenario);
            }
        }
        if (scenarios.isEmpty()) {
            usage("no scenario named " + only);
        }
        long rowsPerKey = rows != null ? rows : shortMode ? 40_000 : 100_000;
        // Only a run of every scenario is "the last full run" that docs/reliability.md records.
        boolean record = !shortMode && only.isEmpty();
        int exit = run(root, fresh(dir), pg, scenarios, rowsPerKey, shortMode, record);
        System.exit(exit);
    }

    private static int run(Path root, Path dir, String pg, List<Scenario> scenarios, long rowsPerKey,
                           boolean shortMode, boolean record) throws Exception {
        Instant started = Instant.now();
        String[] hostPort = pg.split(":");
        Databases databases = new Databases(hostPort[0], Integer.parseInt(hostPort[1]), "loadgate_chaos");
        databases.recreate();
        List<Verdict> verdicts = new ArrayList<>();
        try (Cluster cluster = new Cluster(root, dir, databases)) {
            cluster.startFirstServer();
            cluster.healWorkers(Scenarios.WORKERS);
            // Long enough for a reissue after recovery.stale, a publish given up after publish_stale, and the rest.
            Duration settle = cluster.stale().plus(Duration.ofSeconds(shortMode ? 30 : 45));
            int keyIndex = 0;
            for (Scenario scenario : scenarios) {
                System.err.println("chaos: " + scenario.name() + ": " + scenario.fault());
                Instant begun = Instant.now();
                Scenario.Stage stage = new Scenario.Stage(cluster, keyIndex, rowsPerKey);
                try {
                    scenario.body().play(stage);
                } catch (Exception e) {
                    stage.note("the scenario broke off: " + e);
                }
                keyIndex += 10;
                settle(stage, settle);
                cluster.proxy.disarm();
                cluster.proxy.fired().forEach(fault -> stage.note("proxy: " + fault));
                cluster.proxy.clearFired();
                cluster.endSubmitters().forEach(stage::note);
                Verdict verdict = Verdict.judge(scenario, stage, Duration.between(begun, Instant.now()));
                verdicts.add(verdict);
                System.err.println("chaos: " + scenario.name() + ": " + (verdict.passed() ? "PASS" : "FAIL"));
                heal(cluster);
            }
        }
        String table = table(verdicts, rowsPerKey, Duration.between(started, Instant.now()), shortMode);
        System.out.print(table);
        if (record) {
            record(root.resolve("docs/reliability.md"), table);
        }
        return verdicts.stream().allMatch(Verdict::passed) ? 0 : 1;
    }

    /** Waits until every run of the scenario's keys has ended, or the window has passed. */
    private static void settle(Scenario.Stage stage, Duration window) throws InterruptedException {
        long deadline = System.nanoTime() + window.toNanos();
        while (System.nanoTime() < deadline) {
            boolean active = false;
            for (String key : stage.keys) {
                List<JsonNode> runs = stage.cluster.ledger.runs(Cluster.JOB_KEY, key);
                // No answer (the ledger down) or no run yet counts as not settled.
                active |= runs.isEmpty() || runs.stream().anyMatch(r -> LedgerView.ACTIVE.contains(
                        r.path("status").asText()));
            }
            if (!active) {
                return;
            }
            Thread.sleep(500);
        }
    }

    /** Whatever a scenario did to the cluster is undone before the next one starts. */
    private static void heal(Cluster cluster) throws IOException, InterruptedException {
        if (cluster.server() == null || !cluster.server().alive()) {
            cluster.restartServer();
        }
        cluster.proxy.acceptConnections();
        cluster.healWorkers(Scenarios.WORKERS);
    }

    static String table(List<Verdict> verdicts, long rowsPerKey, Duration took, boolean shortMode) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Loadgate chaos suite%s, %s, %,d rows per key, %d s%n%n", shortMode ? " (--short)" : "",
                Instant.now().toString().substring(0, 16) + "Z", rowsPerKey, took.toSeconds()));
        out.append("| scenario | runs | outcomes | rows compared | lost | doubled | stuck | verdict | s |\n");
        out.append("|---|---:|---|---:|---:|---:|---:|---|---:|\n");
        for (Verdict v : verdicts) {
            out.append(String.format("| %s | %d | %s | %,d | %,d | %,d | %d | %s | %d |%n", v.scenario(), v.runs(),
                    v.outcomes().isEmpty() ? "-" : v.outcomes(), v.rowsCompared(), v.lost(), v.doubled(), v.stuck(),
                    v.passed() ? "PASS" : "FAIL", v.took().toSeconds()));
        }
        out.append("\n```text\n");
        for (Verdict v : verdicts) {
            if (!v.violations().isEmpty() || !v.notes().isEmpty()) {
                out.append(v.scenario()).append(":\n");
                v.violations().forEach(line -> out.append("  ! ").append(line).append('\n'));
                v.notes().forEach(line -> out.append("  - ").append(line).append('\n'));
            }
        }
        return out.append("```\n").toString();
    }

    /** Replaces what follows the page's last heading, "The last full run", with this run's table. */
    private static void record(Path page, String table) throws IOException {
        String text = Files.readString(page);
        String heading = "## The last full run\n";
        int at = text.lastIndexOf(heading);
        if (at < 0) {
            System.err.println("chaos: " + page + " has no '" + heading.trim() + "' heading; not recorded");
            return;
        }
        Files.writeString(page, text.substring(0, at + heading.length()) + "\n" + table);
        System.err.println("chaos: recorded in " + page);
    }

    /** Empties the work directory, but only one this suite made (it carries the marker). */
    private static Path fresh(Path dir) throws IOException {
        if (Files.exists(dir)) {
            if (!Files.exists(dir.resolve(MARKER))) {
                usage(dir + " exists and was not made by the chaos suite; pass another --dir");
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        Files.createDirectories(dir);
        Files.createFile(dir.resolve(MARKER));
        return dir;
    }

    private static void usage(String problem) {
        System.err.println("chaos: " + problem);
        System.err.println("usage: chaos/run [--short] [--only NAME,...] [--rows N] [--dir DIR] [--pg HOST:PORT]");
        System.exit(2);
    }
}
