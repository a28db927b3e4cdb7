package io.loadgate.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.ChunkResult;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestPartition;
import io.loadgate.api.RunId;
import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Chunk reports per second at 16 concurrent reporters (issue 14, {@code bench/run --report-rate}): 16 threads, each
 * reporting chunk after chunk of its own claimed partitions, {@value #CHUNKS_PER_PARTITION} chunks to a partition
 * before it moves on to its next, of one run (every partition in it) and of 16 runs (one reporter's partitions
 * each), over the ledger's HTTP API as workers report, against {@code pgbench} running one single-row conditional
 * UPDATE per transaction with 16 clients on the same PostgreSQL (the ledger's embedded one, durable: fsync and
 * synchronous commit on), before and after. The same reports made in-process ({@code Partitions.reportChunk}, no
 * HTTP, no JSON, no authentication) split the time between the API and the transaction.
 */
final class ReportRateBench {
    private static final int REPORTERS = 16;
    private static final int PGBENCH_ROWS = 100_000;
    /** Never reached: no partition completes, so every report is an ordinary one (insert, heartbeat, totals). */
    private static final int CHUNK_COUNT = 1_000_000;
    /**
     * The chunks a reporter reports to one partition before it goes on to its next: a partition of a 25,000,000-row
     * load in two has 13. A report's work grows with the chunks its partition already holds (its checks and totals
     * read them), so a partition reported to for the whole window (thousands of chunks) measured that growth, not
     * what a load's reports cost (until 2026-12-03 22:30).
     */
    private static final int CHUNKS_PER_PARTITION = 13;
    /** Partitions claimed for each reporter before a window: more than it can fill at 300 reports/s. */
    private static final int PARTITIONS_PER_REPORTER = 420;
    private static final long ROWS_PER_PARTITION = 1_000_000_000L;
    private static final long SPLIT_WIDTH = 1_000;
    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");
    private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");
    private static final String PGBENCH_SCRIPT = """
            \\set id random(1, %d)
            UPDATE rate_t SET v = v + 1 WHERE id = :id AND v >= 0;
            """.formatted(PGBENCH_ROWS);

    private ReportRateBench() {
    }

    record Options(Duration duration, Duration warmup, Path home, Path results, String server, Path pgbench) {
    }

    /** One measured window: calls finished inside it, and their latencies (sorted, nanoseconds). */
    record Rate(String label, long calls, Duration window, long[] latencies, String loadAverage) {
        double perSecond() {
            return calls / (window.toNanos() / 1e9);
        }

        double percentileMillis(double p) {
            return latencies.length == 0 ? Double.NaN
                    : latencies[Math.min(latencies.length - 1, (int) (p * latencies.length))] / 1e6;
        }
    }

    /** pgbench's own figures: transactions per second and its mean latency. */
    record PgbenchRun(double tps, double latencyMillis, String loadAverage) {
    }

    /** A partition a reporter owns: its claim, and where its chunks are said to be. */
    private record Owned(RunId runId, PartitionId partitionId, UUID claimToken, String hdfsRunPath) {
    }

    /** Who the reports go to: the HTTP API, or the ledger in this process. */
    @FunctionalInterface
    private interface Reporter {
        ChunkResult report(RunId runId, PartitionId partitionId, ChunkReport report);
    }

    static void main(String[] args) throws Exception {
        Options options = parse(args);
        Bench.Machine machine = Bench.Machine.describe(options.server(), "postgres");
        System.out.println("machine: " + machine.oneLine());
        Bench.freshHome(options.home());
        try (LoadAverage whole = LoadAverage.start();
             BenchLoadgate ledger = BenchLoadgate.startLedger(options.home())) {
            Path script = preparePgbench(ledger.embedded(), options.home());
            LedgerClient http = ledger.ledger();
            Reporter overHttp = http::reportChunk;
            Reporter inProcess = ledger.inProcessLedger().partitions()::reportChunk;
            String stageRoot = options.home().resolve("stage").toUri().toString();
            Files.createDirectories(options.home().resolve("stage"));

            List<PgbenchRun> pgbench = new ArrayList<>();
            List<Rate> rates = new ArrayList<>();
            pgbench.add(pgbench(options, ledger.embedded(), script));
            rates.add(measure("HTTP, 1 run, 16 reporters", overHttp, oneRun(http, stageRoot, "RATE_HTTP_ONE"),
                    options));
            rates.add(measure("HTTP, 16 runs, 1 per reporter", overHttp, manyRuns(http, stageRoot, "RATE_HTTP_MANY"),
                    options));
            rates.add(measure("in-process, 1 run, 16 reporters", inProcess,
                    oneRun(http, stageRoot, "RATE_LOCAL_ONE"), options));
            rates.add(measure("in-process, 16 runs, 1 per reporter", inProcess,
                    manyRuns(http, stageRoot, "RATE_LOCAL_MANY"), options));
            pgbench.add(pgbench(options, ledger.embedded(), script));
            int pool = ((HikariDataSource) ledger.inProcessLedger().database().dataSource()).getMaximumPoolSize();
            String section = section(ZonedDateTime.now(ZoneOffset.UTC), machine, options, pgbench, rates, pool,
                    whole.summary());
            System.out.println();
            System.out.println(section);
            Report.prepend(options.results(), section);
            System.out.println("written to " + options.results());
        }
    }

    /** A table of {@value #PGBENCH_ROWS} rows in database {@code pgbench} of the ledger's PostgreSQL, and the script. */
    private static Path preparePgbench(EmbeddedPostgres embedded, Path home) throws Exception {
        embedded.ensureDatabase("pgbench");
        try (Connection c = DriverManager.getConnection(embedded.jdbcUrl("pgbench"), embedded.user(), "");
             Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS rate_t");
            s.execute("CREATE TABLE rate_t (id integer PRIMARY KEY, v integer NOT NULL)");
            s.execute("INSERT INTO rate_t SELECT g, 0 FROM generate_series(1, " + PGBENCH_ROWS + ") g");
            s.execute("VACUUM ANALYZE rate_t");
        }
        Path script = home.resolve("pgbench-update.sql");
        Files.writeString(script, PGBENCH_SCRIPT, StandardCharsets.UTF_8);
        return script;
    }

    private static PgbenchRun pgbench(Options options, EmbeddedPostgres embedded, Path script)
            throws IOException, InterruptedException {
        System.out.printf("pgbench: 16 clients, %d s ...%n", options.duration().toSeconds());
        try (LoadAverage load = LoadAverage.start()) {
            Process p = new ProcessBuilder(options.pgbench().toString(), "-n", "-h", "127.0.0.1", "-p",
                    Integer.toString(embedded.port()), "-U", embedded.user(), "-c", Integer.toString(REPORTERS), "-j",
                    "2", "-T", Long.toString(options.duration().toSeconds()), "-f", script.toString(), "pgbench")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("pgbench failed: " + out);
            }
            Matcher tps = TPS.matcher(out);
            Matcher latency = LATENCY.matcher(out);
            if (!tps.find() || !latency.find()) {
                throw new IllegalStateException("no tps or latency in pgbench's output: " + out);
            }
            PgbenchRun run = new PgbenchRun(Double.parseDouble(tps.group(1)), Double.parseDouble(latency.group(1)),
                    load.summary());
            System.out.printf("  %,.0f tps, %.2f ms%n", run.tps(), run.latencyMillis());
            return run;
        }
    }

    /** One run whose partitions are dealt out to the 16 reporters: their reports contend for the run's row lock. */
    private static List<List<Owned>> oneRun(LedgerClient http, String stageRoot, String jobKey) {
        List<Owned> all = claimAll(http, create(http, stageRoot, jobKey, REPORTERS * PARTITIONS_PER_REPORTER));
        return IntStream.range(0, REPORTERS).mapToObj(r -> IntStream.range(0, PARTITIONS_PER_REPORTER)
                .mapToObj(i -> all.get(i * REPORTERS + r)).toList()).toList();
    }

    /** 16 runs, one reporter's partitions each: nothing shared but the database. */
    private static List<List<Owned>> manyRuns(LedgerClient http, String stageRoot, String jobKey) {
        return IntStream.range(0, REPORTERS).mapToObj(i -> claimAll(http,
                create(http, stageRoot, jobKey + "_" + i, PARTITIONS_PER_REPORTER))).toList();
    }

    private record Created(RunId runId, String hdfsRunPath, int partitions) {
    }

    private static Created create(LedgerClient http, String stageRoot, String jobKey, int partitions) {
        var created = http.createRun(new CreateRun(JobKey.of(jobKey), BusinessKey.of(BenchTable.DAY.toString()),
                stageRoot, "stg_", false, Map.of(), Executor.HTTP, null));
        long rows = ROWS_PER_PARTITION * partitions;
        List<ManifestPartition> ranges = IntStream.range(0, partitions).mapToObj(i -> ManifestPartition.range(
                partitionId(i), BigInteger.valueOf(i * SPLIT_WIDTH), BigInteger.valueOf((i + 1) * SPLIT_WIDTH),
                i == partitions - 1, ROWS_PER_PARTITION)).toList();
        http.registerManifest(created.runId(), new Manifest(BigInteger.ONE, null, rows, 0, BigInteger.ZERO,
                BigInteger.valueOf(partitions * SPLIT_WIDTH), partitions, Map.of("COUNT", Long.toString(rows)), "v1",
                ranges));
        return new Created(created.runId(), created.hdfsRunPath(), partitions);
    }

    private static List<Owned> claimAll(LedgerClient http, Created run) {
        List<Owned> owned = new ArrayList<>();
        for (int i = 0; i < run.partitions(); i++) {
            UUID token = UUID.randomUUID();
            if (!http.claim(run.runId(), partitionId(i), new Claim(token, "bench-reporter")).claimed()) {
                throw new IllegalStateException("could not claim partition " + i + " of " + run.runId());
            }
            owned.add(new Owned(run.runId(), partitionId(i), token, run.hdfsRunPath()));
        }
        return owned;
    }

    private static PartitionId partitionId(int i) {
        return PartitionId.of("%04d".formatted(i));
    }

    /**
     * 16 threads, one per reporter, report chunk after chunk (0, 1, 2, ... of a partition, then of its next) for
     * warm-up + duration; the calls that start and end inside the measured window count. Each report is checked:
     * recorded, and its partition still RUNNING.
     */
    private static Rate measure(String label, Reporter reporter, List<List<Owned>> partitions, Options options)
            throws Exception {
        System.out.printf("%s: %d reporters, %d s after %d s of warm-up ...%n", label, partitions.size(),
                options.duration().toSeconds(), options.warmup().toSeconds());
        ExecutorService threads = Executors.newFixedThreadPool(partitions.size());
        try (LoadAverage load = LoadAverage.start()) {
            long from = System.nanoTime() + options.warmup().toNanos();
            long until = from + options.duration().toNanos();
            List<Future<long[]>> futures = new ArrayList<>();
            for (List<Owned> mine : partitions) {
                futures.add(threads.submit(() -> report(reporter, mine, from, until)));
            }
            long[] all = new long[0];
            for (Future<long[]> f : futures) {
                long[] mine = f.get();
                long[] both = Arrays.copyOf(all, all.length + mine.length);
                System.arraycopy(mine, 0, both, all.length, mine.length);
                all = both;
            }
            Arrays.sort(all);
            Rate rate = new Rate(label, all.length, options.duration(), all, load.summary());
            System.out.printf("  %,.0f reports/s, p50 %.1f ms, p99 %.1f ms%n", rate.perSecond(),
                    rate.percentileMillis(0.5), rate.percentileMillis(0.99));
            return rate;
        } finally {
            threads.shutdownNow();
        }
    }

    private static long[] report(Reporter reporter, List<Owned> partitions, long from, long until) {
        long[] latencies = new long[1024];
        int counted = 0;
        for (int call = 0; ; call++) {
            long start = System.nanoTime();
            if (start >= until) {
                break;
            }
            if (call / CHUNKS_PER_PARTITION == partitions.size()) {
                throw new IllegalStateException("a reporter filled all its " + partitions.size()
                        + " partitions before the window ended: raise PARTITIONS_PER_REPORTER");
            }
            Owned p = partitions.get(call / CHUNKS_PER_PARTITION);
            int index = call % CHUNKS_PER_PARTITION;
            ChunkResult result = reporter.report(p.runId(), p.partitionId(), new ChunkReport(p.claimToken(), index,
                    CHUNK_COUNT, p.partitionId().value(), p.hdfsRunPath() + "/part-%s-chunk-%06d.parquet".formatted(
                    p.partitionId().value(), index), 1, 1, "c" + index));
            long end = System.nanoTime();
            if (!result.recorded() || result.receivedChunks() != index + 1) {
                throw new IllegalStateException("report " + index + " of " + p + " came back " + result);
            }
            if (start >= from && end <= until) {
                if (counted == latencies.length) {
                    latencies = Arrays.copyOf(latencies, counted * 2);
                }
                latencies[counted++] = end - start;
            }
        }
        return Arrays.copyOf(latencies, counted);
    }

    static String section(ZonedDateTime time, Bench.Machine machine, Options options, List<PgbenchRun> pgbench,
                          List<Rate> rates, int pool, String loadAverage) {
        double baseline = pgbench.stream().mapToDouble(PgbenchRun::tps).average().orElseThrow();
        StringBuilder out = new StringBuilder();
        out.append("## ").append(Bench.date(time)).append(" — chunk reports per second at 16 reporters against")
                .append(" pgbench (issue 14), nproc ").append(machine.cpus()).append("\n\n");
        out.append("Machine: ").append(machine.oneLine()).append(".  \n");
        out.append("1-minute load average through the run: ").append(loadAverage)
                .append(" (shared with other sessions: compare the ratios, measured minutes apart on the same server).  \n");
        out.append("Server: the ledger's embedded PostgreSQL of `").append(options.home()).append("` (durable: fsync")
                .append(" and synchronous_commit on), for the ledger and for pgbench alike; the ledger in the bench JVM")
                .append(" (Hikari pool of ").append(pool).append(" connections, its default), the reporters in the")
                .append(" same JVM over loopback HTTP with one `HttpLedgerClient`, as a worker's threads share one.")
                .append(" pgbench: `").append(options.pgbench()).append(" -n -c 16 -j 2 -T ")
                .append(options.duration().toSeconds()).append(" -f` a script of one transaction: `\\set id random(1,")
                .append(" ").append(PGBENCH_ROWS).append(")`, `UPDATE rate_t SET v = v + 1 WHERE id = :id AND v >= 0`")
                .append(" (").append(PGBENCH_ROWS).append(" rows), before and after the reports. Each report case: 16")
                .append(" threads, each with ").append(PARTITIONS_PER_REPORTER).append(" claimed partitions of its own,")
                .append(" reporting chunk 0, 1, 2, ... of one (no partition completes), ").append(CHUNKS_PER_PARTITION)
                .append(" chunks to a partition before it goes on to its next; ").append(options.warmup().toSeconds())
                .append(" s of warm-up, then ")
                .append(options.duration().toSeconds()).append(" s measured.\n\n");
        out.append("| measure | per second | × pgbench (mean of both) | latency p50 | p99 | load average |\n")
                .append("|---|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < pgbench.size(); i++) {
            PgbenchRun p = pgbench.get(i);
            out.append("| pgbench, %s: transactions | %,.0f | %.2f | %.2f ms (mean) | – | %s |\n".formatted(
                    i == 0 ? "before" : "after", p.tps(), p.tps() / baseline, p.latencyMillis(), p.loadAverage()));
        }
        for (Rate r : rates) {
            out.append("| %s: chunk reports | %,.0f | %.2f | %.1f ms | %.1f ms | %s |\n".formatted(r.label(),
                    r.perSecond(), r.perSecond() / baseline, r.percentileMillis(0.5), r.percentileMillis(0.99),
                    r.loadAverage()));
        }
        out.append('\n');
        for (Rate r : rates.stream().filter(r -> r.label().startsWith("HTTP")).toList()) {
            double ratio = r.perSecond() / baseline;
            out.append("%s: %.2f× pgbench (goal to explain below 0.5: %s).  \n".formatted(r.label(), ratio,
                    ratio >= 0.5 ? "met" : "**under 0.5**"));
        }
        return out.append('\n').toString();
    }

    private static Options parse(String[] args) {
        Duration duration = Duration.ofSeconds(15);
        Duration warmup = Duration.ofSeconds(3);
        Path home = Path.of("/tmp/loadgate-bench");
        Path results = Path.of("bench/RESULTS.md");
        String server = "jdbc:postgresql://127.0.0.1:5432/";
        Path pgbench = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--report-rate" -> { }
                case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--results" -> results = Path.of(args[++i]);
                case "--server" -> server = args[++i].endsWith("/") ? args[i] : args[i] + "/";
                case "--pgbench" -> pgbench = Path.of(args[++i]);
                default -> {
                    System.err.println("""
                            usage: bench/run --report-rate [--seconds 15] [--pgbench PATH] [--home DIR]
                                                           [--results FILE] [--server URL]""");
                    System.exit(2);
                }
            }
        }
        return new Options(duration, warmup, home, results, server, pgbench != null ? pgbench : findPgbench());
    }

    /** PostgreSQL's client packages put it under /usr/lib/postgresql/VERSION/bin, not always on PATH. */
    private static Path findPgbench() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin/pgbench")).filter(Files::isExecutable).sorted()
                    .reduce((a, b) -> b).orElse(Path.of("pgbench"));
        } catch (IOException e) {
            return Path.of("pgbench");
        }
    }
}
