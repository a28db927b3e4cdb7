package io.loadgate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The issue 5 benchmark, run by hand ({@code bench/run}): the COPY ceiling, full loads with 2 and 4 partitions
 * through the real path, the ledger's share of each load, and a per-layer breakdown of one extraction stream.
 * Prints a table and puts the figures at the top of {@code bench/RESULTS.md}.
 */
public final class Bench {
    private static final String MARKER = ".loadgate-bench";

    private Bench() {
    }

    record Options(long rows, List<Integer> partitions, Path home, Path results, String server, boolean warmup,
                   boolean breakdown, boolean transforms, boolean spark, int sparkRounds, int rounds) {
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--files")) {
            FileBench.main(args);
            return;
        }
        if (List.of(args).contains("--scale")) {
            ScaleBench.main(args);
            return;
        }
        if (List.of(args).contains("--report-rate")) {
            ReportRateBench.main(args);
            return;
        }
        Options options = parse(args);
        String user = "postgres";
        String sourceUrl = options.server() + BenchTable.database(options.rows());
        Machine machine = Machine.describe(options.server(), user);
        System.out.println("machine: " + machine.oneLine());
        LoadAverage loadAverage = LoadAverage.start();

        BenchTable.ensure(options.server(), user, options.rows());
        freshHome(options.home());

        List<CopyBaseline.Measurement> copies = new ArrayList<>();
        System.out.println("COPY ceiling (two passes; the first also warms the caches):");
        for (int i = 0; i < 2; i++) {
            copies.add(copy(sourceUrl, user));
        }

        List<LoadResult> loads = new ArrayList<>();
        List<SparkBench.Result> spark = List.of();
        try (BenchLoadgate loadgate = BenchLoadgate.start(options.home(),
                options.partitions().stream().mapToInt(Integer::intValue).max().orElse(2))) {
            Path stage = options.home().resolve("stage");
            Files.createDirectories(stage);
            if (options.warmup()) {
                System.out.println("warm-up load (2 partitions; not reported) ...");
                loadgate.load("warm-up", 2, BenchTable.jobYaml(sourceUrl, "BENCH_WARMUP", "lake.bench_warmup", 2,
                        stage.toUri().toString(), "zstd"), BenchTable.DAY.toString());
            }
            // Round by round, so each partition count's loads are spread over the same minutes as the others'.
            for (int round = 1; round <= options.rounds(); round++) {
                for (int partitions : options.partitions()) {
                    System.out.printf("load with %d partitions (round %d of %d) ...%n", partitions, round,
                            options.rounds());
                    LoadResult result = load(loadgate, sourceUrl, stage, partitions, false);
                    System.out.printf("  %,d rows in %.1f s; extraction %,.0f rows/s (workers %,.0f); ledger %.2f%%%n",
                            result.rows(), result.wallSeconds(), result.extractLedgerRowsPerSecond(),
                            result.extractWorkerRowsPerSecond(), 100 * result.ledgerShare());
                    loads.add(result);
                }
            }
            if (options.transforms()) {
                int partitions = options.partitions().stream().mapToInt(Integer::intValue).max().orElse(2);
                System.out.printf("load with %d partitions and row transforms ...%n", partitions);
                loads.add(load(loadgate, sourceUrl, stage, partitions, true));
            }
            if (options.spark()) {
                // Last: it stops the workers' pool. Spark's [N] is the fewest partitions, the workers' load to match.
                spark = SparkBench.measure(loadgate, sourceUrl, stage,
                        options.partitions().stream().mapToInt(Integer::intValue).min().orElse(2), options.rows(),
                        options.sparkRounds());
            }
        }
        System.out.println("COPY ceiling again, after the loads:");
        copies.add(copy(sourceUrl, user));

        List<Breakdown.Pass> passes = List.of();
        if (options.breakdown()) {
            System.out.println("breakdown of one extraction stream (1 partition, single thread):");
            passes = Breakdown.measure(sourceUrl, user, options.home().resolve("breakdown"));
        }

        loadAverage.close();
        Report report = new Report(ZonedDateTime.now(ZoneOffset.UTC), machine, options, copies, loads, spark, passes,
                loadAverage.summary());
        System.out.println();
        System.out.println(report.table());
        report.prependTo(options.results());
        System.out.println("written to " + options.results());
    }

    private static LoadResult load(BenchLoadgate loadgate, String sourceUrl, Path stage, int partitions,
                                   boolean transforms) throws Exception {
        String name = "P" + partitions + (transforms ? "T" : "");
        String yaml = BenchTable.jobYaml(sourceUrl, "BENCH_" + name, "lake.bench_" + name.toLowerCase(Locale.ROOT),
                partitions, stage.toUri().toString(), "zstd");
        String label = partitions + " partitions";
        if (transforms) {
            yaml = BenchTable.withTransforms(yaml);
            label += " + transforms";
        }
        return loadgate.load(label, partitions, yaml, BenchTable.DAY.toString());
    }

    private static CopyBaseline.Measurement copy(String sourceUrl, String user) throws Exception {
        CopyBaseline.Measurement m = CopyBaseline.measure(sourceUrl, user);
        System.out.printf("  %,d rows, %,d bytes in %.2f s: %,.0f rows/s%n", m.rows(), m.bytes(), m.nanos() / 1e9,
                m.rowsPerSecond());
        return m;
    }

    /** The home is the benchmark's own: made fresh each run, and only removed when our marker says it is ours. */
    static void freshHome(Path home) throws IOException {
        if (Files.exists(home)) {
            if (!Files.exists(home.resolve(MARKER))) {
                try (Stream<Path> entries = Files.list(home)) {
                    if (entries.findAny().isPresent()) {
                        throw new IllegalStateException(home + " is not empty and not a benchmark home (no " + MARKER
                                + "); choose another with --home");
                    }
                }
            } else {
                try (Stream<Path> all = Files.walk(home)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
        Files.createDirectories(home);
        Files.writeString(home.resolve(MARKER), "made by bench/run; removed and remade by the next run\n");
    }

    private static Options parse(String[] args) {
        long rows = BenchTable.DEFAULT_ROWS;
        List<Integer> partitions = List.of(2, 4);
        Path home = Path.of("/tmp/loadgate-bench");
        Path results = Path.of("bench/RESULTS.md");
        String server = "jdbc:postgresql://127.0.0.1:5432/";
        boolean warmup = true;
        boolean breakdown = true;
        boolean transforms = false;
        boolean spark = false;
        int sparkRounds = 3;
        int rounds = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--partitions" -> partitions = Stream.of(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--results" -> results = Path.of(args[++i]);
                case "--server" -> server = args[++i].endsWith("/") ? args[i] : args[i] + "/";
                case "--no-warmup" -> warmup = false;
                case "--no-breakdown" -> breakdown = false;
                case "--transforms" -> transforms = true;
                case "--spark" -> spark = true;
                case "--spark-rounds" -> sparkRounds = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("""
                            usage: bench/run [--rows N] [--partitions 2,4] [--home DIR] [--results FILE]
                                             [--server jdbc:postgresql://127.0.0.1:5432/] [--no-warmup] [--no-breakdown]
                                             [--transforms] [--spark] [--spark-rounds 3] [--rounds 1]""");
                    System.exit(2);
                }
            }
        }
        if (sparkRounds < 1 || rounds < 1) {
            System.err.println("bench: --spark-rounds and --rounds must be at least 1");
            System.exit(2);
        }
        return new Options(rows, partitions, home, results, server, warmup, breakdown, transforms, spark, sparkRounds,
                rounds);
    }

    /** What the figures were measured on. */
    record Machine(int cpus, String cpuModel, long memoryKib, String postgres, String jvm, long maxHeapMib,
                   String host) {
        static Machine describe(String serverUrl, String user) throws Exception {
            String postgres;
            try (Connection c = DriverManager.getConnection(serverUrl + "postgres", user, "");
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT version()")) {
                rs.next();
                postgres = rs.getString(1).replaceAll(" on .*", "");
            }
            String cpu = "?";
            long memory = -1;
            try {
                cpu = Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8).stream()
                        .filter(l -> l.startsWith("model name")).findFirst().map(l -> l.replaceAll(".*:\\s*", ""))
                        .orElse("?");
                memory = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                        .findFirst().map(l -> Long.parseLong(l.replaceAll("\\D", ""))).orElse(-1L);
            } catch (IOException e) {
                // Not Linux: the figures stand without these details.
            }
            return new Machine(Runtime.getRuntime().availableProcessors(), cpu, memory, postgres,
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                    Runtime.getRuntime().maxMemory() >> 20, java.net.InetAddress.getLocalHost().getHostName());
        }

        String oneLine() {
            return "nproc %d (%s), memory %.1f GiB, %s, %s (max heap %,d MiB), host %s".formatted(cpus, cpuModel,
                    memoryKib / 1024.0 / 1024.0, postgres, jvm, maxHeapMib, host);
        }
    }

    /**
     * The middle of {@code values} in {@code order} (the lower of the two middle ones for an even count): the run a
     * report shows as the median, itself rather than an average of two runs.
     */
    static <T> T medianBy(List<T> values, Comparator<? super T> order) {
        return values.stream().sorted(order).toList().get((values.size() - 1) / 2);
    }

    static String date(ZonedDateTime time) {
        return time.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    }
}
