package io.loadgate.bench;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.spark.ExecutorSettings;
import io.loadgate.spark.SparkLoad;
import io.loadgate.worker.job.JobSpecLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The same table loaded on Spark, in the benchmark's JVM after the workers' loads: Loadgate on Spark
 * ({@link SparkLoad}) on {@code speculating-local[N]} (speculation on, as a cluster runs it; the loadgate-spark tests'
 * master) and on plain {@code local[N]}, then Spark's own {@code spark.read.jdbc(... numPartitions ...)
 * .write.parquet} over the same rows on {@code local[N]}: no snapshot, no validation, no table, no ledger.
 */
final class SparkBench {
    /**
     * One Spark measurement. For a Loadgate run, from the ledger's timestamps: {@code extractNanos} its extraction
     * (startedAt → extractCompletedAt) and {@code afterNanos} what follows it (staging validation, publish, target
     * validation: extractCompletedAt → completedAt), and {@code tailNanos} from the ledger's completedAt to the return
     * of {@code SparkLoad.run} (the driver's follower and the stop of its step worker); all absent for the plain JDBC
     * job. {@code roundSeconds}: the whole job's time in each round, of which this is the median one.
     */
    record Result(String label, int partitions, long rows, long wallNanos, Long extractNanos, Long afterNanos,
                  Long tailNanos, List<Double> roundSeconds) {
        Result {
            requireNonNull(label, "label is null");
            roundSeconds = List.copyOf(roundSeconds);
        }

        double loadRowsPerSecond() {
            return rows / (wallNanos / 1e9);
        }

        Double extractRowsPerSecond() {
            return extractNanos == null ? null : rows / (extractNanos / 1e9);
        }

        /** The round of median whole-job time among {@code rounds}, with every round's time. */
        static Result median(List<Result> rounds) {
            Result median = Bench.medianBy(rounds, java.util.Comparator.comparingLong(Result::wallNanos));
            return new Result(median.label, median.partitions, median.rows, median.wallNanos, median.extractNanos,
                    median.afterNanos, median.tailNanos, rounds.stream().map(r -> r.wallNanos / 1e9).toList());
        }
    }

    private SparkBench() {
    }

    /**
     * Each engine {@code rounds} times, reported by its median round: on this shared 2-core machine one load's time
     * varied by up to 40% between neighbouring runs. Loadgate on local[N] and Spark's JDBC job alternate, round by
     * round, in one session, so that a slow minute weighs on both; each session's Loadgate loads follow an unmeasured
     * one, as the workers' load and Spark's JDBC job follow theirs.
     */
    static List<Result> measure(BenchLoadgate loadgate, String sourceUrl, Path stage, int partitions, long rows,
                                int rounds) throws Exception {
        // Only Spark's tasks may extract from here on: the pool would lease the Spark runs' extractions too.
        loadgate.stopWorkers();
        String cores = "[" + partitions + "]";
        List<Result> speculating = new ArrayList<>();
        List<Result> local = new ArrayList<>();
        List<Result> jdbc = new ArrayList<>();
        try (Session spark = Session.start("speculating-local" + cores)) {
            loadgateOnSpark(loadgate, spark, sourceUrl, stage, partitions, "speculating-local" + cores, "WARMUP");
            for (int round = 1; round <= rounds; round++) {
                speculating.add(loadgateOnSpark(loadgate, spark, sourceUrl, stage, partitions,
                        "speculating-local" + cores, "R" + round));
            }
        }
        try (Session spark = Session.start("local" + cores)) {
            loadgateOnSpark(loadgate, spark, sourceUrl, stage, partitions, "local" + cores, "WARMUP");
            for (int round = 1; round <= rounds; round++) {
                local.add(loadgateOnSpark(loadgate, spark, sourceUrl, stage, partitions, "local" + cores, "R" + round));
                jdbc.add(jdbcToParquet(spark, sourceUrl, loadgate.home().resolve("spark-jdbc-r" + round), partitions,
                        rows));
            }
        }
        return List.of(Result.median(speculating), Result.median(local), Result.median(jdbc));
    }

    /** One Loadgate-on-Spark load of the table on {@code spark}, as job and table of their own ({@code round}). */
    private static Result loadgateOnSpark(BenchLoadgate loadgate, Session spark, String sourceUrl, Path stage,
                                          int partitions, String master, String round) throws Exception {
        String name = "SPARK_" + master.replaceAll("[^A-Za-z0-9]+", "_").toUpperCase(java.util.Locale.ROOT) + "_" + round;
        String yaml = BenchTable.jobYaml(sourceUrl, "BENCH_" + name, "lake.bench_" + name.toLowerCase(
                java.util.Locale.ROOT), partitions, stage.toUri().toString(), "zstd");
        String label = "Loadgate on Spark " + master + ", " + partitions + " partitions";
        System.out.printf("%s (%s) ...%n", label, round.toLowerCase(java.util.Locale.ROOT));
        long start;
        long wall;
        java.time.Instant returned;
        SparkLoad.Result result;
        // Closed after the measurement, as a caller would once done with it: close waits for the driver's step
        // worker to stop (its last lease poll), which run() does not.
        try (SparkLoad load = new SparkLoad(spark.context(), loadgate.ledger(),
                ExecutorSettings.of(loadgate.ledgerUrl(), loadgate.workerToken()), loadgate.catalogs(),
                loadgate.environment())) {
            start = System.nanoTime();
            result = load.run(JobSpecLoader.parse(Path.of(name + ".yaml"), yaml), yaml, BenchTable.DAY.toString());
            wall = System.nanoTime() - start;
            returned = java.time.Instant.now();
        }
        RunView run = result.run();
        if (run.status() != RunStatus.SUCCESS) {
            throw new IllegalStateException(label + " ended " + run.status() + ": " + run.errorMessage());
        }
        long extract = Duration.between(run.startedAt(), run.extractCompletedAt()).toNanos();
        long tail = Duration.between(run.completedAt(), returned).toNanos();
        System.out.printf("  %,d rows in %.1f s; extraction %,.0f rows/s (%d Spark attempt(s) returned); run() returned"
                + " %.2f s after the ledger's SUCCESS%n", run.extractedCount(), wall / 1e9,
                run.extractedCount() / (extract / 1e9), result.tasks().size(), tail / 1e9);
        return new Result(label, partitions, run.extractedCount(), wall, extract,
                Duration.between(run.extractCompletedAt(), run.completedAt()).toNanos(), tail, List.of());
    }

    /** Spark's JDBC source split on the key as Loadgate splits it, written as zstd Parquet, as Loadgate stages. */
    private static Result jdbcToParquet(Session spark, String sourceUrl, Path out, int partitions, long rows)
            throws Exception {
        String label = "Spark JDBC -> Parquet local[" + partitions + "], numPartitions " + partitions;
        System.out.printf("%s ...%n", label);
        Properties connection = new Properties();
        connection.setProperty("user", "postgres");
        connection.setProperty("password", "");
        connection.setProperty("driver", "org.postgresql.Driver");
        connection.setProperty("fetchsize", "10000");
        // Unmeasured first: the same job over the first 1,000 keys, so that planning and Parquet set-up are warm as
        // the workers' and Loadgate-on-Spark's are by then.
        spark.session().read().jdbc(sourceUrl, BenchTable.TABLE, "id", 1, 1_001, partitions, connection)
                .where("id <= 1000").write().option("compression", "zstd")
                .parquet(out.resolveSibling(out.getFileName() + "-warm-up").toUri().toString());
        long start = System.nanoTime();
        spark.session().read().jdbc(sourceUrl, BenchTable.TABLE, "id", 1, rows + 1, partitions, connection)
                .where(BenchTable.FILTER_COLUMN + " = DATE '" + BenchTable.DAY + "'")
                .write().option("compression", "zstd").parquet(out.toUri().toString());
        long wall = System.nanoTime() - start;
        long written = spark.session().read().parquet(out.toUri().toString()).count();
        if (written != rows) {
            throw new IllegalStateException(label + " wrote " + written + " rows, not " + rows);
        }
        try (var files = Files.list(out)) {
            System.out.printf("  %,d rows in %.1f s (%d files)%n", written, wall / 1e9,
                    files.filter(p -> p.toString().endsWith(".parquet")).count());
        }
        return new Result(label, partitions, written, wall, null, null, null, List.of());
    }

    /** A Spark session of one master, its UI off, speculation on as the README's spark-submit line sets it. */
    private record Session(SparkSession session) implements AutoCloseable {
        static Session start(String master) {
            SparkSession session = SparkSession.builder().master(master).appName("loadgate-bench")
                    .config("spark.ui.enabled", "false")
                    .config("spark.speculation", "true")
                    .getOrCreate();
            // One unmeasured job: the executors' task path is warm before the first measured one.
            session.range(0, 1_000, 1, 4).count();
            return new Session(session);
        }

        JavaSparkContext context() {
            return JavaSparkContext.fromSparkContext(session.sparkContext());
        }

        @Override
        public void close() {
            session.stop();
        }
    }
}
