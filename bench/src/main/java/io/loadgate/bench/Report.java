package io.loadgate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** The run's figures as Markdown: printed, and put at the top of RESULTS.md above earlier runs. */
record Report(ZonedDateTime time, Bench.Machine machine, Bench.Options options, List<CopyBaseline.Measurement> copies,
              List<LoadResult> loads, List<SparkBench.Result> spark, List<Breakdown.Pass> passes, String loadAverage) {
    static final String HEADER = """
            # Loadgate benchmark results

            Made by `bench/run` (see `bench/README.md`); each run puts its section at the top, earlier runs stay below.
            Goals (issue 5): extraction into committed Parquet at >= 0.5 of the same server's `COPY (SELECT ...) TO
            STDOUT` rate; time in ledger calls < 2% of the whole load.

            <!-- runs, newest first -->
            """;
    private static final String RUNS = "<!-- runs, newest first -->\n";

    double ceiling() {
        return copies.stream().mapToDouble(CopyBaseline.Measurement::rowsPerSecond).max().orElseThrow();
    }

    /** Each label's loads (one per round), in the order they first ran. */
    private Map<String, List<LoadResult>> byLabel() {
        return loads.stream().collect(Collectors.groupingBy(LoadResult::label, LinkedHashMap::new,
                Collectors.toList()));
    }

    /** Each label's load of the median whole-load time (the lower of the two middle ones for an even count). */
    List<LoadResult> medianLoads() {
        return byLabel().values().stream()
                .map(rounds -> Bench.medianBy(rounds, Comparator.comparingLong(LoadResult::wallNanos))).toList();
    }

    private static double median(List<LoadResult> rounds, ToDoubleFunction<LoadResult> measure) {
        double[] values = rounds.stream().mapToDouble(measure).sorted().toArray();
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    String table() {
        double ceiling = ceiling();
        StringBuilder out = new StringBuilder();
        out.append("| measure | rows/s | × COPY | goal |\n|---|---:|---:|---|\n");
        out.append(row("COPY (SELECT 6 columns WHERE day) TO STDOUT, 1 stream, best of %d".formatted(copies.size()),
                ceiling, ceiling, ""));
        byLabel().forEach((label, rounds) -> {
            String name = rounds.size() == 1 ? label : "%s, median of %d rounds".formatted(label, rounds.size());
            double extract = median(rounds, LoadResult::extractLedgerRowsPerSecond);
            out.append(row("%s: extraction (ledger startedAt → extractCompletedAt)".formatted(
                    name), extract, ceiling, extract / ceiling >= 0.5 ? "≥ 0.5 met" : "≥ 0.5 **missed**"));
            out.append(row("%s: extraction (workers: first claim → last chunk reported)".formatted(
                    name), median(rounds, LoadResult::extractWorkerRowsPerSecond), ceiling, ""));
            out.append(row("%s: whole load (submit → success)".formatted(name),
                    median(rounds, LoadResult::loadRowsPerSecond), ceiling, ""));
        });
        if (options.rounds() > 1) {
            out.append(roundsTable(ceiling));
        }
        if (!spark.isEmpty()) {
            out.append(sparkTable(ceiling));
        }
        out.append("\n| load | rows | chunk files | whole load | ledger calls | time in ledger calls | share | goal |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (LoadResult r : medianLoads()) {
            out.append("| %s | %,d | %d | %.2f s | %d | %.0f ms | %.2f%% | < 2%% %s |\n".formatted(
                    r.label(), r.rows(), r.chunkFiles(), r.wallSeconds(), r.ledgerCalls(), r.ledgerNanos() / 1e6,
                    100 * r.ledgerShare(), r.ledgerShare() < 0.02 ? "met" : "**missed**"));
        }
        return out.toString();
    }

    /**
     * Every round's loads × COPY, round by round: neighbouring loads on a shared machine differ by more than the goals'
     * margins, so a goal is judged on the medians above and the spread is shown here.
     */
    private String roundsTable(double ceiling) {
        Map<String, List<LoadResult>> byLabel = byLabel();
        StringBuilder out = new StringBuilder("\n| round |");
        byLabel.keySet().forEach(label -> out.append(" %s: extraction × COPY | whole load × COPY |".formatted(label)));
        out.append("\n|---:|").append("---:|---:|".repeat(byLabel.size())).append('\n');
        int rounds = byLabel.values().stream().mapToInt(List::size).max().orElse(0);
        for (int i = 0; i < rounds; i++) {
            out.append("| ").append(i + 1).append(" |");
            for (List<LoadResult> loadsOfLabel : byLabel.values()) {
                if (i < loadsOfLabel.size()) {
                    LoadResult r = loadsOfLabel.get(i);
                    out.append(" %.2f | %.2f |".formatted(r.extractLedgerRowsPerSecond() / ceiling,
                            r.loadRowsPerSecond() / ceiling));
                } else {
                    out.append(" – | – |");
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * The Spark loads beside the workers' load of as many partitions: × COPY and × the workers' load (issue 13's goals:
     * Loadgate-on-Spark's extraction within 0.8× of the workers', its verified load faster than Spark's JDBC job).
     */
    private String sparkTable(double ceiling) {
        int partitions = spark.get(0).partitions();
        // The plain load of as many partitions, not the "+ transforms" one.
        LoadResult workers = medianLoads().stream().filter(r -> r.partitions() == partitions && !r.label().contains("+"))
                .findFirst().orElse(null);
        SparkBench.Result jdbc = spark.stream().filter(r -> r.extractNanos() == null).findFirst().orElse(null);
        StringBuilder out = new StringBuilder("\n| engine (same table, same run) | extraction rows/s | × COPY | × workers'"
                + " extraction | whole job rows/s | × COPY | × workers' whole load | whole job (s) | extraction (s) |"
                + " after extraction (s) | whole job, each round (s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        if (workers != null) {
            out.append("| Loadgate workers, %s | %,.0f | %.2f | 1.00 | %,.0f | %.2f | 1.00 | %.1f | %.1f | %.1f | one load |\n"
                    .formatted(workers.label(), workers.extractLedgerRowsPerSecond(),
                            workers.extractLedgerRowsPerSecond() / ceiling, workers.loadRowsPerSecond(),
                            workers.loadRowsPerSecond() / ceiling, workers.wallSeconds(),
                            workers.extractLedgerNanos() / 1e9, workers.afterExtractSeconds()));
        }
        for (SparkBench.Result r : spark) {
            Double extract = r.extractRowsPerSecond();
            out.append("| %s | %s | %s | %s | %,.0f | %.2f | %s | %.1f | %s | %s | %s |\n".formatted(r.label(),
                    extract == null ? "–" : "%,.0f".formatted(extract),
                    extract == null ? "–" : "%.2f".formatted(extract / ceiling),
                    extract == null || workers == null ? "–"
                            : "%.2f".formatted(extract / workers.extractLedgerRowsPerSecond()),
                    r.loadRowsPerSecond(), r.loadRowsPerSecond() / ceiling,
                    workers == null ? "–" : "%.2f".formatted(r.loadRowsPerSecond() / workers.loadRowsPerSecond()),
                    r.wallNanos() / 1e9, r.extractNanos() == null ? "–" : "%.1f".formatted(r.extractNanos() / 1e9),
                    r.afterNanos() == null ? "–" : "%.1f".formatted(r.afterNanos() / 1e9),
                    r.roundSeconds().stream().map("%.1f"::formatted).collect(Collectors.joining(", "))));
        }
        if (jdbc != null) {
            spark.stream().filter(r -> r.extractNanos() != null).forEach(r -> out.append(
                    "\n%s: whole verified load / Spark's unverified JDBC → Parquet job: %.2f× its rate%s".formatted(
                            r.label(), r.loadRowsPerSecond() / jdbc.loadRowsPerSecond(),
                            r.loadRowsPerSecond() > jdbc.loadRowsPerSecond() ? " (faster)" : " (slower)")
                            + "; `run()` returned %.2f s after the ledger's SUCCESS".formatted(r.tailNanos() / 1e9)));
            // Rounds of Loadgate on local[N] alternate with the JDBC job's: each pair ran in the same minute.
            spark.stream().filter(r -> r.extractNanos() != null && r.label().contains(" local[")
                    && r.roundSeconds().size() == jdbc.roundSeconds().size()).forEach(r -> {
                        List<String> ratios = new java.util.ArrayList<>();
                        for (int i = 0; i < r.roundSeconds().size(); i++) {
                            ratios.add("%.2f×".formatted(jdbc.roundSeconds().get(i) / r.roundSeconds().get(i)));
                        }
                        out.append("\n%s against the JDBC job of the same round (its rate / the job's): %s".formatted(
                                r.label(), String.join(", ", ratios)));
                    });
            out.append('\n');
        }
        return out.toString();
    }

    private static String row(String name, double rate, double ceiling, String goal) {
        return "| %s | %,.0f | %.2f | %s |\n".formatted(name, rate, rate / ceiling, goal);
    }

    String section() {
        StringBuilder out = new StringBuilder();
        out.append("## ").append(Bench.date(time)).append(" — ").append("%,d rows".formatted(options.rows()))
                .append(", nproc ").append(machine.cpus()).append("\n\n");
        out.append("Machine: ").append(machine.oneLine()).append(".  \n");
        out.append("1-minute load average during the run: ").append(loadAverage).append(".  \n");
        out.append("Source metrics: `source.metrics: ").append(BenchLoadgate.metricsTiming().name().toLowerCase(java.util.Locale.ROOT))
                .append(BenchLoadgate.lastManifestCarriedMetrics()
                        ? "`, measured while planning, before the manifest.  \n"
                        : "`, measured at the snapshot while the partitions extract (the manifest says they follow).  \n");
        out.append("Source: `%s` in database `%s`, 6 columns (bigint key = split column, int, numeric(12,2), date = the"
                .formatted(BenchTable.TABLE, BenchTable.database(options.rows()))).append(" business key, one day for all rows, text,")
                .append(" timestamptz); ledger and Iceberg JDBC catalog on the embedded PostgreSQL of `")
                .append(options.home()).append("`, Parquet ").append(BenchLoadgate.codecName())
                .append(", ").append(BenchLoadgate.chunkName()).append(", one pool of ")
                .append(options.partitions().stream().mapToInt(Integer::intValue).max().orElse(2))
                .append(" worker threads for every load, all in one JVM. ")
                .append(options.warmup() ? "One unreported 2-partition warm-up load ran first (JIT, caches)."
                        : "No warm-up load.").append("\n\n");
        out.append(table()).append('\n');
        out.append("COPY passes: ").append(copies.stream().map(c -> "%,.0f rows/s (%.2f s, %,d MB)".formatted(
                c.rowsPerSecond(), c.nanos() / 1e9, c.bytes() / 1_000_000)).collect(Collectors.joining("; ")))
                .append(" — two before the loads, one after; the table uses the best.\n\n");
        out.append("Ledger share: the sum, over all threads, of the wall time of every `LedgerClient` call the workers")
                .append(" and the submitter made between submit and the `success` call's return — claims, chunk")
                .append(" reports, heartbeats, validation, publish, `getRun` of the run context — except")
                .append(" `leaseDispatches` (a long poll that mostly waits for work); divided by the load's wall time.")
                .append(" Calls on different threads overlap, so this overstates their cost to the critical path. The")
                .append(" follower's progress polling (`getRun` every 100 ms, as the CLI polls every 250 ms) is an")
                .append(" observer and is shown apart.\n\n");
        List<LoadResult> shown = medianLoads();
        out.append(options.rounds() > 1 ? "Phases of each partition count's median load (by whole-load time), from the"
                + " worker's ledger calls:\n\n| phase |" : "Phases (from the worker's ledger calls):\n\n| phase |");
        shown.forEach(r -> out.append(" %s |".formatted(r.label())));
        out.append("\n|---|").append("---:|".repeat(shown.size())).append('\n');
        for (String phase : shown.get(0).phases().keySet()) {
            out.append("| ").append(phase).append(" |");
            shown.forEach(r -> out.append(" %.2f s |".formatted(r.phases().get(phase) / 1e9)));
            out.append('\n');
        }
        out.append("\nLedger calls (count / total ms / max ms):\n\n| call |");
        shown.forEach(r -> out.append(" %s |".formatted(r.label())));
        out.append("\n|---|").append("---:|".repeat(shown.size())).append('\n');
        java.util.SortedSet<String> methods = new java.util.TreeSet<>();
        shown.forEach(r -> methods.addAll(r.byMethod().keySet()));
        for (String method : methods) {
            out.append("| `").append(method).append(method.equals("leaseDispatches") ? "` (not counted)" : "`")
                    .append(" |");
            for (LoadResult r : shown) {
                long[] m = r.byMethod().getOrDefault(method, new long[3]);
                out.append(" %d / %.0f / %.0f |".formatted(m[0], m[1] / 1e6, m[2] / 1e6));
            }
            out.append('\n');
        }
        out.append("| follower `getRun` (observer, not counted) |");
        shown.forEach(r -> out.append(" %d / %.0f / – |".formatted(r.followerCalls(), r.followerNanos() / 1e6)));
        out.append('\n');
        if (!passes.isEmpty()) {
            out.append("\nOne extraction stream, layer by layer (1 partition, 1 thread, the worker's classes, no ledger):")
                    .append("\n\n| pass | rows/s | × COPY | s per 1M rows | thread CPU per row |\n|---|---:|---:|---:|---:|\n");
            for (Breakdown.Pass p : passes) {
                out.append("| %s | %,.0f | %.2f | %.2f | %.0f ns |\n".formatted(p.name(), p.rowsPerSecond(),
                        p.rowsPerSecond() / ceiling(), p.nanos() / 1e9 / (p.rows() / 1e6), (double) p.cpuNanos() / p.rows()));
            }
        }
        return out.append('\n').toString();
    }

    void prependTo(Path results) throws IOException {
        prepend(results, section());
    }

    /** Puts a run's section at the top of the runs in {@code results} (the file benchmark's too). */
    static void prepend(Path results, String section) throws IOException {
        String existing = Files.exists(results) ? Files.readString(results, StandardCharsets.UTF_8) : HEADER;
        int at = existing.indexOf(RUNS);
        String updated = at < 0 ? HEADER + "\n" + section + existing
                : existing.substring(0, at + RUNS.length()) + "\n" + section + existing.substring(at + RUNS.length());
        Files.writeString(results, updated, StandardCharsets.UTF_8);
    }

}
