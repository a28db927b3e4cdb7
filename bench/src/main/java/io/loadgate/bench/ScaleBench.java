package io.loadgate.bench;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The issue 14 scale benchmark ({@code bench/run --scale}): the bench table at 1,000,000, 5,000,000 and 25,000,000
 * rows (each size its own database, as {@code --rows} makes them), each loaded through the real path by a worker
 * in a JVM of its own with {@code -Xmx1g} ({@link WorkerProcess}, one per size, so that its peak RSS is that size's),
 * three times after its warm-ups (the median reported), the ledger and the submitter in this JVM. Beside each size:
 * the COPY ceiling of the same size, measured around it, the 1-minute load average while it ran, and the ledger's
 * rows of the run, which must grow with the chunks, not the rows. Whole-load time per row should stay within ±15%
 * across the sizes and the worker's peak RSS flat.
 */
final class ScaleBench {
    static final List<Long> SIZES = List.of(1_000_000L, 5_000_000L, 25_000_000L);
    static final String WORKER_HEAP = "1g";
    /** Each worker's JVM warms up on a table of its own (JIT), so that the small size is not the only cold one. */
    private static final long WARMUP_ROWS = 1_000_000;
    /**
     * Three, not one: after a single warm-up the extraction's hot methods were compiled again during the measured
     * load (JFR: `ChunkWriter.writeChunk`, `ColumnWriterBase.write`, `PgCopyRows.next`, 1.3 s of C2 in a 1.9 s
     * extraction on 2 cores): the warm-up's code for them was given up along the way (most likely when its later
     * steps loaded more classes; not confirmed); a 5,000,000-row warm-up did not help, three loads did (1,000,000 rows: extraction 1.3 s against 1.7–2.0 s). A
     * worker is a long-running process, so the steady state is what a load meets.
     */
    private static final int WARMUP_LOADS = 3;
    /**
     * Those warm-ups' chunks: a 1,000,000-row warm-up's 500,000-row partitions would each fill less than one chunk of
     * the default million rows, so the code of a partition of several chunks (a chunk's roll-over, the key sets of
     * several files merged) would first be compiled during the larger sizes' measured loads. A JIT log of a
     * 5,000,000-row worker's three measured loads (2026-12-06) had 397 compilations queued in them, among them that
     * code; a long-running worker has compiled it.
     */
    private static final int WARMUP_ROWS_PER_CHUNK = 100_000;
    /**
     * Then this many loads of {@link #SMALL_WARMUP_ROWS} rows, for the steps a load takes once whatever its size
     * (claims, a source connection, a chunk file's setup, the ledger's calls, Iceberg's commit): three loads leave
     * them interpreted or barely compiled in both JVMs, the worker's and this one's ledger. Loads of 10,000 rows took
     * 0.32 s after five warm-ups and 0.17 s after forty (2026-12-04 22:08): half of a small load's fixed cost was
     * cold code, which a long-running worker and ledger, loading many runs, do not run. Forty still left the JIT
     * compiling through the measured loads: per 1,000,000-row load 70 compilations and 385 ms of the compiler
     * threads' time in the worker, 41 and 346 ms in this JVM; after two hundred, 24 and 231 ms, 14 and 133 ms
     * (2026-12-06, `jcmd PerfCounter.print`, the figures each run now prints).
     */
    private static final int SMALL_WARMUP_LOADS = 200;
    private static final long SMALL_WARMUP_ROWS = 10_000;
    /**
     * The measured load, repeated: neighbouring loads of one size on this shared 2-core machine differed by up to 30%,
     * more than the ±15% the sizes are judged by; each size's table row is its median load.
     */
    private static final int REPEATS = 3;
    /**
     * Sizes below {@link #SHORT_BELOW} rows load this many times as often: a 1,000,000-row load takes under a second,
     * and its median moved by 8% between three runs of one build (723 / 749 / 781 ns per row, 2026-12-05), half the
     * ±15% it is judged by; fifteen loads cost twelve seconds more.
     */
    private static final int SHORT_REPEATS_FACTOR = 5;
    private static final long SHORT_BELOW = 5_000_000;
    private static final double PER_ROW_TOLERANCE = 0.15;
    private static final Duration LIVE_HEAP_EVERY = Duration.ofSeconds(1);
    /** The live-heap samples a size is loaded again for, in at most {@link #LIVE_HEAP_LOADS} loads. */
    private static final int LIVE_HEAP_SAMPLES = 3;
    private static final int LIVE_HEAP_LOADS = 10;
    private static final String LEDGER_ROWS = """
            SELECT (SELECT count(*) FROM load_partition WHERE run_id = ?),
                   (SELECT count(*) FROM load_file WHERE run_id = ?),
                   (SELECT count(*) FROM load_event WHERE run_id = ?),
                   (SELECT count(*) FROM load_dispatch WHERE run_id = ?),
                   (SELECT count(*) FROM load_validation WHERE run_id = ?)""";

    private static final String TIMELINE = """
            SELECT (extract(epoch FROM created_at - min(created_at) OVER ()) * 1000)::bigint, event_type,
                   coalesce(partition_id, '') || ' ' || coalesce(from_status, '') || ' -> ' || coalesce(to_status, '')
                       || to_char(created_at AT TIME ZONE 'UTC', ' (HH24:MI:SS.MS)')
              FROM load_event WHERE run_id = ? ORDER BY event_id""";

    private ScaleBench() {
    }

    record Options(List<Long> sizes, int partitions, Path home, Path results, String server, long warmupRows,
                   int warmupLoads, int smallWarmupLoads, int repeats, boolean liveHeap, Path cli) {
        /** How many times a size is loaded: {@code --repeats}, five times that below 5,000,000 rows. */
        int repeats(long rows) {
            return rows < SHORT_BELOW ? repeats * SHORT_REPEATS_FACTOR : repeats;
        }
    }

    /** The ledger's rows of one run, by table. */
    record LedgerRows(long partitions, long chunks, long events, long dispatches, long validations) {
        long total() {
            return partitions + chunks + events + dispatches + validations;
        }
    }

    /**
     * One size: its COPY passes, its median load (and every repeat's wall), the worker's peak RSS, heap and ledger
     * calls (of the first repeat), the median run's ledger rows, and the JIT's work in the worker's JVM and the bench's
     * (ledger and submitter) over all the measured loads.
     */
    record Size(long rows, List<CopyBaseline.Measurement> copies, BenchLoadgate.Submitted load, List<Duration> walls,
                long peakRssKib, WorkerProcess.HeapPeaks heap, List<LiveHeapSampler.Sample> liveHeap,
                int liveHeapSkipped,
                Map<String, Long> workerCalls, Map<String, Double> callMillis, long submitterCalls,
                LedgerRows ledgerRows, Jcmd.Jit workerJit, Jcmd.Jit ledgerJit, String loadAverage) {
        double copyRowsPerSecond() {
            return copies.stream().mapToDouble(CopyBaseline.Measurement::rowsPerSecond).max().orElseThrow();
        }

        double wallSeconds() {
            return load.wall().toNanos() / 1e9;
        }

        double rowsPerSecond() {
            return rows / wallSeconds();
        }

        double nanosPerRow() {
            return load.wall().toNanos() / (double) rows;
        }

        /** The worker's calls and the submitter's, without the lease long polls (they mostly wait for work). */
        long ledgerCalls() {
            return submitterCalls + workerCalls.entrySet().stream().filter(e -> !e.getKey().equals("leaseDispatches"))
                    .mapToLong(Map.Entry::getValue).sum();
        }

        /** The largest of the live-heap samples of the sampled load, if there was one. */
        Optional<LiveHeapSampler.Sample> peakLiveHeap() {
            return liveHeap.stream().max(Comparator.comparingLong(LiveHeapSampler.Sample::bytes));
        }

        long workerCalls(String method) {
            return workerCalls.getOrDefault(method, 0L);
        }
    }

    static void main(String[] args) throws Exception {
        Options options = parse(args);
        String user = "postgres";
        Bench.Machine machine = Bench.Machine.describe(options.server(), user);
        System.out.println("machine: " + machine.oneLine());
        List<Long> tables = new ArrayList<>(options.sizes());
        if (options.warmupRows() > 0 && !tables.contains(options.warmupRows())) {
            tables.add(0, options.warmupRows());
        }
        if (options.smallWarmupLoads() > 0 && !tables.contains(SMALL_WARMUP_ROWS)) {
            tables.add(0, SMALL_WARMUP_ROWS);
        }
        // All tables first, so that making one (25 M rows take minutes) never falls inside a measurement.
        for (long rows : tables) {
            BenchTable.ensure(options.server(), user, rows);
        }
        Bench.freshHome(options.home());
        List<Size> sizes = new ArrayList<>();
        try (LoadAverage whole = LoadAverage.start();
             BenchLoadgate ledger = BenchLoadgate.startLedger(options.home())) {
            Path stage = options.home().resolve("stage");
            Files.createDirectories(stage);
            for (long rows : options.sizes()) {
                Size size = measure(ledger, options, stage, rows, user);
                System.out.printf("  %,d rows in %.1f s: %,.0f rows/s, %.2f× COPY, %.0f ns/row, worker peak RSS %,d MiB,"
                                + " %d ledger calls, %d ledger rows%n", rows, size.wallSeconds(), size.rowsPerSecond(),
                        size.rowsPerSecond() / size.copyRowsPerSecond(), size.nanosPerRow(), size.peakRssKib() >> 10,
                        size.ledgerCalls(), size.ledgerRows().total());
                sizes.add(size);
            }
            String section = section(ZonedDateTime.now(ZoneOffset.UTC), machine, options, sizes, whole.summary());
            System.out.println();
            System.out.println(section);
            Report.prepend(options.results(), section);
            System.out.println("written to " + options.results());
        }
    }

    /** The heap after marking in a size's measured loads, or "none" when they ran no marking. */
    private static String marked(Size size) {
        return size.heap().afterMarkingMib() == 0 ? "none" : "%,d MiB".formatted(size.heap().afterMarkingMib());
    }

    private static Size measure(BenchLoadgate ledger, Options options, Path stage, long rows, String user)
            throws Exception {
        String sourceUrl = options.server() + BenchTable.database(rows);
        try (LoadAverage load = LoadAverage.start()) {
            List<CopyBaseline.Measurement> copies = new ArrayList<>();
            System.out.printf("%,d rows: COPY ceiling (two passes) ...%n", rows);
            copies.add(CopyBaseline.measure(sourceUrl, user));
            copies.add(CopyBaseline.measure(sourceUrl, user));
            BenchLoadgate.Submitted loaded;
            List<Duration> walls;
            long peakRss;
            WorkerProcess.HeapPeaks peakHeap;
            List<LiveHeapSampler.Sample> liveHeap = List.of();
            int liveHeapSkipped = 0;
            Map<String, Long> calls = new TreeMap<>();
            Map<String, Double> callMillis = new TreeMap<>();
            Jcmd.Jit workerJit;
            Jcmd.Jit ledgerJit;
            try (WorkerProcess worker = WorkerProcess.start(options.cli(), ledger, options.partitions(), WORKER_HEAP,
                    "scale-" + rows)) {
                System.out.printf("  worker pid %d (-Xmx%s, %d threads)%n", worker.pid(), WORKER_HEAP,
                        options.partitions());
                try {
                    if (options.warmupRows() > 0) {
                        warmUp(ledger, worker, options, stage, options.warmupRows(), options.warmupLoads(),
                                "warmup", Optional.of(warmupRowsPerChunk()));
                    }
                    warmUp(ledger, worker, options, stage, SMALL_WARMUP_ROWS, options.smallWarmupLoads(),
                            "small_warmup", BenchLoadgate.rowsPerChunk());
                    List<BenchLoadgate.Submitted> loads = new ArrayList<>();
                    int repeats = options.repeats(rows);
                    Map<String, WorkerProcess.CallTotals> first = worker.ledgerCallTotals();
                    long gcLogMark = worker.gcLogLines();
                    Jcmd.Jit workerJitBefore = Jcmd.Jit.of(worker.pid());
                    Jcmd.Jit ledgerJitBefore = Jcmd.Jit.of(ProcessHandle.current().pid());
                    for (int repeat = 1; repeat <= repeats; repeat++) {
                        Map<String, Long> before = worker.ledgerCalls();
                        System.out.printf("  load %d of %d: %,d rows with %d partitions ...%n", repeat,
                                repeats, rows, options.partitions());
                        // A table and job key of its own, so that every repeat publishes as the first did.
                        loads.add(ledger.submit("scale " + rows + " #" + repeat, BenchTable.jobYaml(sourceUrl,
                                "SCALE_" + rows + "_" + repeat, "lake.scale_" + rows + "_" + repeat,
                                options.partitions(), stage.toUri().toString(), "zstd"), BenchTable.DAY.toString()));
                        if (repeat == 1) {
                            worker.ledgerCalls().forEach((method, n) -> {
                                long made = n - before.getOrDefault(method, 0L);
                                if (made > 0) {
                                    calls.put(method, made);
                                }
                            });
                        }
                    }
                    worker.ledgerCallTotals().forEach((method, totals) -> {
                        WorkerProcess.CallTotals before = first.getOrDefault(method,
                                new WorkerProcess.CallTotals(0, 0));
                        if (totals.count() > before.count()) {
                            callMillis.put(method, (totals.seconds() - before.seconds()) * 1e3
                                    / (totals.count() - before.count()));
                        }
                    });
                    workerJit = Jcmd.Jit.of(worker.pid()).since(workerJitBefore);
                    ledgerJit = Jcmd.Jit.of(ProcessHandle.current().pid()).since(ledgerJitBefore);
                    walls = loads.stream().map(BenchLoadgate.Submitted::wall).toList();
                    loaded = Bench.medianBy(loads, Comparator.comparing(BenchLoadgate.Submitted::wall));
                    peakRss = worker.peakRssKib();
                    peakHeap = worker.heapPeaks(gcLogMark);
                    if (options.liveHeap()) {
                        System.out.printf("  the same load again, its live heap sampled every %d s (not timed), until"
                                + " %d samples ...%n", LIVE_HEAP_EVERY.toSeconds(), LIVE_HEAP_SAMPLES);
                        try (LiveHeapSampler sampler = LiveHeapSampler.start(worker.pid(), worker.gcLog(),
                                LIVE_HEAP_EVERY)) {
                            // A load shorter than the sampling period may end between two samples, or during a
                            // skipped one: it is loaded again until the size has samples to compare.
                            for (int again = 1; again <= LIVE_HEAP_LOADS
                                    && sampler.samples().size() < LIVE_HEAP_SAMPLES; again++) {
                                BenchLoadgate.Submitted sampled = ledger.submit(
                                        "scale " + rows + " live heap #" + again,
                                        BenchTable.jobYaml(sourceUrl, "SCALE_" + rows + "_HEAP_" + again,
                                                "lake.scale_" + rows + "_heap_" + again, options.partitions(),
                                                stage.toUri().toString(), "zstd"),
                                        BenchTable.DAY.toString());
                                timeline(ledger, sampled.end().runId())
                                        .forEach(line -> System.out.println("    " + line));
                            }
                            liveHeap = sampler.samples();
                            liveHeapSkipped = sampler.skipped();
                            liveHeap.forEach(sample -> System.out.printf("    %s  %,d MiB  %s%n", sample.at(),
                                    sample.mib(), sample.topClasses()));
                        }
                    }
                } catch (RuntimeException e) {
                    throw new IllegalStateException("the load of " + rows + " rows failed; the worker's output ends: \n"
                            + worker.logTail().orElse("(none)"), e);
                }
            }
            long stopped = System.nanoTime();
            copies.add(CopyBaseline.measure(sourceUrl, user));
            if (loaded.end().extractedCount() != rows) {
                throw new IllegalStateException("the load extracted " + loaded.end().extractedCount() + " of " + rows);
            }
            System.out.printf("  the median of %d loads (walls %s):%n", walls.size(), seconds(walls));
            LedgerRows ledgerRows = ledgerRows(ledger, loaded.end().runId());
            timeline(ledger, loaded.end().runId()).forEach(line -> System.out.println("    " + line));
            // A lease poll of the stopped worker can still be waiting in the ledger, which would hand it the next
            // run's first dispatch; nothing is submitted until it has surely ended.
            long wait = WorkerProcess.LEASE_WAIT.plusSeconds(2).toNanos() - (System.nanoTime() - stopped);
            if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait).toMillis());
            }
            long submitterCalls = loaded.calls().stream().filter(c -> !c.isLeaseWait()).count();
            return new Size(rows, copies, loaded, walls, peakRss, peakHeap, liveHeap, liveHeapSkipped, calls,
                    callMillis, submitterCalls, ledgerRows, workerJit, ledgerJit, load.summary());
        }
    }

    private static String seconds(List<Duration> walls) {
        // Hundredths below ten seconds: a 1,000,000-row load's walls differ by less than a tenth.
        return walls.stream().map(wall -> (wall.toMillis() < 10_000 ? "%.2f" : "%.1f").formatted(wall.toMillis() / 1e3))
                .collect(Collectors.joining(" / ")) + " s";
    }

    private static LedgerRows ledgerRows(BenchLoadgate ledger, RunId runId) {
        return ledger.inProcessLedger().database().inTransaction(tx -> tx.queryOne(LEDGER_ROWS,
                rs -> new LedgerRows(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)),
                runId, runId, runId, runId, runId).orElseThrow());
    }

    /**
     * {@code loads} unreported loads of the {@code rows}-row table, each into a table of its own, the worker's metrics
     * read before each as before a measured load: otherwise the JIT compiles their exposition during the measured
     * loads only (a fifth of the worker's compilations there, 2026-12-06).
     */
    private static void warmUp(BenchLoadgate ledger, WorkerProcess worker, Options options, Path stage, long rows,
                               int loads, String name, Optional<Integer> rowsPerChunk) throws Exception {
        for (int warmup = 1; warmup <= loads; warmup++) {
            worker.ledgerCalls();
            System.out.printf("  warm-up load %d of %d, %,d rows (not reported) ...%n", warmup, loads, rows);
            ledger.submit("scale " + name + " " + warmup, BenchTable.jobYaml(options.server()
                    + BenchTable.database(rows), "SCALE_" + name.toUpperCase(Locale.ROOT) + "_" + warmup,
                    "lake.scale_" + name + "_" + warmup, options.partitions(), stage.toUri().toString(), "zstd",
                    rowsPerChunk), BenchTable.DAY.toString());
        }
    }

    /** {@link #WARMUP_ROWS_PER_CHUNK}, or the measured loads' chunk when {@code BENCH_ROWS_PER_CHUNK} is smaller. */
    private static int warmupRowsPerChunk() {
        return Math.min(WARMUP_ROWS_PER_CHUNK, BenchLoadgate.rowsPerChunk().orElse(Integer.MAX_VALUE));
    }

    /** The run's events, each at its milliseconds since the first: where a load's fixed time goes. */
    private static List<String> timeline(BenchLoadgate ledger, RunId runId) {
        return ledger.inProcessLedger().database().inTransaction(tx -> tx.query(TIMELINE,
                rs -> "%6d ms  %-28s %s".formatted(rs.getLong(1), rs.getString(2), rs.getString(3)), runId));
    }

    static String section(ZonedDateTime time, Bench.Machine machine, Options options, List<Size> sizes,
                          String loadAverage) {
        StringBuilder out = new StringBuilder();
        out.append("## ").append(Bench.date(time)).append(" — scale (issue 14): ")
                .append(sizes.stream().map(s -> "%,d".formatted(s.rows())).collect(Collectors.joining(" / ")))
                .append(" rows, nproc ").append(machine.cpus()).append("\n\n");
        out.append("Machine: ").append(machine.oneLine()).append(" (the bench JVM: ledger and submitter).  \n");
        out.append("1-minute load average through the whole run: ").append(loadAverage)
                .append("; the machine is shared with other sessions, so each size's load average is given beside it")
                .append(" and only ratios to the COPY of the same size compare.  \n");
        out.append("Source: `%s`, the bench table's 6 columns, in database `bench` (5,000,000 rows) or `bench_<rows>`;"
                .formatted(BenchTable.TABLE)).append(" each size loaded ").append(options.repeats())
                .append(" time(s), %d below %,d rows (a load of under a second varies most),".formatted(
                        options.repeats() * SHORT_REPEATS_FACTOR, SHORT_BELOW))
                .append(" the table giving the median load, with ").append(options.partitions())
                .append(" partitions by a worker in a JVM of its own (`loadgate worker --threads ")
                .append(options.partitions()).append("`, bin/loadgate's class path, `-Xmx").append(WORKER_HEAP)
                .append("`), a new one per size, ")
                .append(options.warmupRows() > 0
                        ? "after %d unreported warm-up load(s) of %,d rows in it (%,d rows per chunk)".formatted(
                                options.warmupLoads(), options.warmupRows(), warmupRowsPerChunk())
                        : "without a warm-up load")
                .append(options.smallWarmupLoads() > 0
                        ? ", then %d of %,d rows (the steps a load takes once, compiled as in a long-running worker and ledger)"
                                .formatted(options.smallWarmupLoads(), SMALL_WARMUP_ROWS)
                        : "")
                .append("; ledger (embedded PostgreSQL of `").append(options.home())
                .append("`) and submitter in the bench JVM; Parquet ").append(BenchLoadgate.codecName())
                .append(", ").append(BenchLoadgate.chunkName()).append('.');
        String workerOptions = System.getenv().getOrDefault("BENCH_WORKER_JAVA_OPTS", "");
        if (!workerOptions.isBlank()) {
            out.append(" The workers' JVMs also had `").append(workerOptions.trim())
                    .append("` (after `-Xmx").append(WORKER_HEAP).append("`: a later `-Xmx` wins).");
        }
        out.append("\n\n");
        out.append("| rows | wall (submit → SUCCESS), median | every load's wall | rows/s | COPY rows/s (best of 3)"
                + " | × COPY | ns per row | per row ÷ mean | plan / extract / after (s) | worker peak RSS"
                + " | worker heap committed, peak in the measured loads | worker heap after marking, peak in them"
                + " | ledger calls (of them heartbeats)"
                + " | ledger rows: partitions / chunks / events / dispatches / validations | load average |\n"
                + "|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|\n");
        double meanPerRow = sizes.stream().mapToDouble(Size::nanosPerRow).average().orElseThrow();
        for (Size s : sizes) {
            RunView end = s.load().end();
            LedgerRows r = s.ledgerRows();
            out.append(("| %,d | %.1f s | %s | %,.0f | %,.0f | %.2f | %.0f | %.2f | %.2f / %.2f / %.2f | %,d MiB | %,d MiB | %s"
                    + " | %d (%d) |")
                    .formatted(s.rows(), s.wallSeconds(), seconds(s.walls()), s.rowsPerSecond(), s.copyRowsPerSecond(),
                            s.rowsPerSecond() / s.copyRowsPerSecond(), s.nanosPerRow(), s.nanosPerRow() / meanPerRow,
                            Duration.between(s.load().startedAt(), end.startedAt()).toMillis() / 1e3,
                            Duration.between(end.startedAt(), end.extractCompletedAt()).toMillis() / 1e3,
                            Duration.between(end.extractCompletedAt(), end.completedAt()).toMillis() / 1e3,
                            s.peakRssKib() >> 10, s.heap().committedMib(), marked(s), s.ledgerCalls(),
                            s.workerCalls("heartbeat") + s.workerCalls("heartbeatValidation")))
                    .append(" %d / %d / %d / %d / %d (%d) | %s |\n".formatted(r.partitions(), r.chunks(), r.events(),
                            r.dispatches(), r.validations(), r.total(), s.loadAverage()));
        }
        out.append('\n').append(verdicts(sizes)).append(' ').append(marginal(sizes)).append("\n\n");
        if (sizes.stream().anyMatch(s -> s.peakLiveHeap().isPresent())) {
            out.append(liveHeap(sizes));
        }
        out.append("Worker ledger calls by method (the measured load only; `leaseDispatches` are long polls, not"
                + " counted above), with the mean time of such a call at the worker over all the size's measured"
                + " loads:\n\n| call |");
        sizes.forEach(s -> out.append(" %,d rows |".formatted(s.rows())));
        out.append("\n|---|").append("---:|".repeat(sizes.size())).append('\n');
        sizes.stream().flatMap(s -> s.workerCalls().keySet().stream()).distinct().sorted().forEach(method -> {
            out.append("| `").append(method).append("` |");
            sizes.forEach(s -> out.append(s.callMillis().containsKey(method)
                    ? " %d (%.1f ms) |".formatted(s.workerCalls(method), s.callMillis().get(method))
                    : " %d |".formatted(s.workerCalls(method))));
            out.append('\n');
        });
        out.append("| submitter (createRun, registerManifest, ...) |");
        sizes.forEach(s -> out.append(" %d |".formatted(s.submitterCalls())));
        out.append("\n\nThe JIT during the measured loads, per load (`jcmd PID PerfCounter.print`: `sun.ci.totalCompiles`,"
                + " and `java.ci.totalTime`, the compiler threads' time, which the two cores' other threads could not"
                + " use meanwhile): ");
        out.append(sizes.stream().map(s -> "%,d rows: worker %s, bench JVM %s".formatted(s.rows(),
                s.workerJit().perLoad(s.walls().size()), s.ledgerJit().perLoad(s.walls().size())))
                .collect(Collectors.joining("; "))).append('.');
        out.append("\n\nCOPY passes (two before the load, one after): ");
        out.append(sizes.stream().map(s -> "%,d rows: %s".formatted(s.rows(), s.copies().stream()
                .map(c -> "%,.0f".formatted(c.rowsPerSecond())).collect(Collectors.joining(", ")))).collect(
                Collectors.joining("; "))).append(" rows/s.\n\n");
        return out.toString();
    }

    /**
     * The reachable heap of further, untimed loads of each size, sampled by full collections: unlike RSS and the heap
     * after a marking it does not follow how much garbage G1 lets pile up, so a structure that grows with the rows
     * shows here.
     */
    private static String liveHeap(List<Size> sizes) {
        StringBuilder out = new StringBuilder(("The worker's reachable heap in further loads of each size (untimed,"
                + " until %d samples), by `jcmd PID GC.class_histogram` every %d s (a full collection each; a"
                + " histogram whose collection the gc log does not show, taken while a JNI critical region held the"
                + " collector off, is left out as skipped: it counts garbage):\n\n")
                .formatted(LIVE_HEAP_SAMPLES, LIVE_HEAP_EVERY.toSeconds()));
        out.append("| rows | samples (skipped) | median | peak | the peak's largest classes (MiB) |\n"
                + "|---:|---:|---:|---:|---|\n");
        for (Size s : sizes) {
            List<Long> mib = s.liveHeap().stream().map(LiveHeapSampler.Sample::mib).sorted().toList();
            s.peakLiveHeap().ifPresent(peak -> out.append("| %,d | %d (%d) | %,d MiB | %,d MiB | %s |\n".formatted(
                    s.rows(), mib.size(), s.liveHeapSkipped(), mib.get(mib.size() / 2), peak.mib(),
                    String.join(", ", peak.topClasses()).replace("|", "\\|"))));
        }
        // A short load can end between two samples; only sizes with one compare (a missing one is not 0 MiB).
        List<Size> sampled = sizes.stream().filter(s -> s.peakLiveHeap().isPresent()).toList();
        if (sampled.size() < 2) {
            return out.append("\nFewer than two sizes were sampled: no comparison.\n\n").toString();
        }
        Size largest = sampled.get(sampled.size() - 1);
        long last = peakLiveHeapMib(largest);
        out.append("\nPeak reachable heap of %,d rows: %s that of %,d rows".formatted(largest.rows(),
                ratio(last, peakLiveHeapMib(sampled.get(0))), sampled.get(0).rows()));
        if (sampled.size() > 2) {
            // A size whose partitions are smaller than a chunk writes smaller chunks, and a chunk's pages are what
            // the writer holds: the next smaller size shows growth with the rows alone.
            Size next = sampled.get(sampled.size() - 2);
            out.append(", %s that of %,d rows".formatted(ratio(last, peakLiveHeapMib(next)), next.rows()));
        }
        // The moments when both writers hold a nearly full chunk recur once per chunk: a longer load is sampled
        // more often, so its largest sample comes nearer to that moment's size.
        out.append(" (a longer load has more samples, so its peak is the largest of more).\n\n");
        return out.toString();
    }

    private static long peakLiveHeapMib(Size size) {
        return size.peakLiveHeap().map(LiveHeapSampler.Sample::mib).orElse(0L);
    }

    private static String ratio(long mib, long baseMib) {
        return "%.2f×%s".formatted((double) mib / Math.max(1, baseMib),
                mib <= baseMib * (1 + PER_ROW_TOLERANCE) ? "" : " (**more than 15% above**)");
    }

    /**
     * Time per row within ±15% of the mean across the sizes (by seconds and by × COPY), RSS and the heap after
     * marking flat.
     */
    private static String verdicts(List<Size> sizes) {
        DoubleSummaryStatistics perRow = sizes.stream().mapToDouble(Size::nanosPerRow).summaryStatistics();
        // Per row against COPY per row of the same size: the load average differs between the sizes' measurements.
        DoubleSummaryStatistics perCopyRow = sizes.stream()
                .mapToDouble(s -> s.copyRowsPerSecond() / s.rowsPerSecond()).summaryStatistics();
        DoubleSummaryStatistics rss = sizes.stream().mapToDouble(Size::peakRssKib).summaryStatistics();
        DoubleSummaryStatistics committed = sizes.stream().mapToDouble(s -> s.heap().committedMib()).summaryStatistics();
        DoubleSummaryStatistics heap = sizes.stream().filter(s -> s.heap().afterMarkingMib() > 0)
                .mapToDouble(s -> s.heap().afterMarkingMib()).summaryStatistics();
        Size first = sizes.get(0);
        Size last = sizes.get(sizes.size() - 1);
        return ("Whole-load time per row (each size's median load): %.0f–%.0f ns, %+.0f%% / %+.0f%% of the mean (goal ±%.0f%%: %s). The same in"
                + " units of the size's own COPY time per row (%.2f–%.2f): %+.0f%% / %+.0f%% (%s). Worker peak RSS:"
                + " %,d–%,d MiB, the largest size at %.2f× the smallest's (%s), of which G1's committed heap %,d–%,d MiB; its heap after marking at its peak:"
                + " %s. Ledger rows per run: %d at %,d rows,"
                + " %d at %,d rows (%.1f× for %.0f× the rows; chunks %d → %d).").formatted(
                perRow.getMin(), perRow.getMax(), pct(perRow.getMin(), perRow.getAverage()),
                pct(perRow.getMax(), perRow.getAverage()), 100 * PER_ROW_TOLERANCE, within(perRow),
                perCopyRow.getMin(), perCopyRow.getMax(), pct(perCopyRow.getMin(), perCopyRow.getAverage()),
                pct(perCopyRow.getMax(), perCopyRow.getAverage()), within(perCopyRow),
                (long) rss.getMin() >> 10, (long) rss.getMax() >> 10, (double) last.peakRssKib() / first.peakRssKib(),
                last.peakRssKib() <= first.peakRssKib() * (1 + PER_ROW_TOLERANCE) ? "flat within 15%" : "**grows**",
                (long) committed.getMin(), (long) committed.getMax(),
                afterMarking(first, last, heap),
                first.ledgerRows().total(), first.rows(), last.ledgerRows().total(), last.rows(),
                (double) last.ledgerRows().total() / first.ledgerRows().total(), (double) last.rows() / first.rows(),
                first.ledgerRows().chunks(), last.ledgerRows().chunks());
    }

    /**
     * The verdict on the heap after marking, from {@code marked}: the sizes whose measured loads ran a marking. A size
     * without one has no such figure (G1 marks when its old generation fills), so the smallest and the largest size
     * compare only when both have one.
     */
    private static String afterMarking(Size first, Size last, DoubleSummaryStatistics marked) {
        if (marked.getCount() == 0) {
            return "no marking in any size's measured loads";
        }
        long smallest = first.heap().afterMarkingMib();
        long largest = last.heap().afterMarkingMib();
        if (smallest == 0 || largest == 0) {
            return "%,d–%,d MiB in the %d size(s) whose measured loads ran a marking".formatted(
                    (long) marked.getMin(), (long) marked.getMax(), marked.getCount());
        }
        return "%,d–%,d MiB, the largest size at %.2f× the smallest's (%s)".formatted((long) marked.getMin(),
                (long) marked.getMax(), (double) largest / smallest,
                largest <= smallest * (1 + PER_ROW_TOLERANCE) ? "flat within 15%" : "**grows**");
    }

    /**
     * What each added row costs, apart from what a load costs at any size: the wall's growth per row between
     * consecutive sizes, and a least-squares line through all of them (a fixed cost per load plus a cost per row).
     * Why: a fixed cost makes the smallest size dearer per row however linear the rest is, and ±15% of the mean
     * per row cannot tell the two apart.
     */
    private static String marginal(List<Size> sizes) {
        if (sizes.size() < 2) {
            return "";
        }
        List<String> steps = new ArrayList<>();
        for (int i = 1; i < sizes.size(); i++) {
            Size a = sizes.get(i - 1);
            Size b = sizes.get(i);
            steps.add("%,d → %,d rows %.0f ns".formatted(a.rows(), b.rows(),
                    (b.load().wall().toNanos() - a.load().wall().toNanos()) / (double) (b.rows() - a.rows())));
        }
        double[] line = leastSquares(sizes.stream().mapToDouble(Size::rows).toArray(),
                sizes.stream().mapToDouble(s -> s.load().wall().toNanos()).toArray());
        return ("Each added row (the wall's growth between the median loads of consecutive sizes): %s. A line through"
                + " all sizes: %.2f s per load plus %.0f ns per row.").formatted(String.join(", ", steps),
                line[0] / 1e9, line[1]);
    }

    /** The intercept and slope of the least-squares line of {@code y} on {@code x}. */
    private static double[] leastSquares(double[] x, double[] y) {
        double meanX = Arrays.stream(x).average().orElseThrow();
        double meanY = Arrays.stream(y).average().orElseThrow();
        double covariance = 0;
        double variance = 0;
        for (int i = 0; i < x.length; i++) {
            covariance += (x[i] - meanX) * (y[i] - meanY);
            variance += (x[i] - meanX) * (x[i] - meanX);
        }
        double slope = covariance / variance;
        return new double[] {meanY - slope * meanX, slope};
    }

    private static double pct(double value, double mean) {
        return 100 * (value / mean - 1);
    }

    private static String within(DoubleSummaryStatistics s) {
        return s.getMin() >= s.getAverage() * (1 - PER_ROW_TOLERANCE)
                && s.getMax() <= s.getAverage() * (1 + PER_ROW_TOLERANCE) ? "met" : "**missed**";
    }

    private static Options parse(String[] args) {
        List<Long> sizes = SIZES;
        int partitions = 2;
        Path home = Path.of("/tmp/loadgate-bench");
        Path results = Path.of("bench/RESULTS.md");
        String server = "jdbc:postgresql://127.0.0.1:5432/";
        long warmupRows = WARMUP_ROWS;
        int warmupLoads = WARMUP_LOADS;
        int smallWarmupLoads = SMALL_WARMUP_LOADS;
        int repeats = REPEATS;
        boolean liveHeap = true;
        Path cli = Path.of("loadgate-cli/target");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--scale" -> { }
                case "--sizes" -> sizes = Stream.of(args[++i].split(",")).map(Long::valueOf).toList();
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--results" -> results = Path.of(args[++i]);
                case "--server" -> server = args[++i].endsWith("/") ? args[i] : args[i] + "/";
                case "--no-warmup" -> {
                    warmupRows = 0;
                    smallWarmupLoads = 0;
                }
                case "--warmup-rows" -> warmupRows = Long.parseLong(args[++i]);
                case "--warmup-loads" -> warmupLoads = Integer.parseInt(args[++i]);
                case "--small-warmup-loads" -> smallWarmupLoads = Integer.parseInt(args[++i]);
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                case "--no-live-heap" -> liveHeap = false;
                case "--cli" -> cli = Path.of(args[++i]);
                default -> {
                    System.err.println("""
                            usage: bench/run --scale [--sizes 1000000,5000000,25000000] [--partitions 2] [--home DIR]
                                                     [--results FILE] [--server URL] [--no-warmup]
                                                     [--warmup-rows 1000000] [--warmup-loads 3] [--small-warmup-loads 200]
                                                     [--repeats 3] [--no-live-heap]
                                                     [--cli loadgate-cli/target]""");
                    System.exit(2);
                }
            }
        }
        if (repeats < 1) {
            System.err.println("--repeats must be at least 1, got " + repeats);
            System.exit(2);
        }
        return new Options(sizes, partitions, home, results, server, warmupRows, warmupLoads, smallWarmupLoads, repeats,
                liveHeap, cli.toAbsolutePath());
    }
}
