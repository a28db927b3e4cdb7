package io.loadgate.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The issue 11 file benchmark ({@code bench/run --files}): NDJSON lines in a Camus tree of one hour loaded by a file
 * job through the real path (the in-process ledger, workers, parse, Parquet, staging validation, Iceberg publish,
 * target validation), beside, in the same run, the {@code cat files | wc -l} rate (the I/O ceiling) and Spark's
 * {@code read().schema(S).json(files).write().parquet(out)} on {@code local[N]} in a JVM of its own. Only the ratios
 * within one run compare: other sessions share the cores.
 */
final class FileBench {
    /** The timed hour, and a small one before it that warms both sides (JIT, Spark's code generation). */
    static final LocalDateTime HOUR = LocalDateTime.of(2026, 11, 30, 14, 0);
    static final LocalDateTime WARMUP_HOUR = HOUR.minusHours(1);
    static final int WARMUP_LINES = 20_000;
    static final int DIRECTORIES = 6;
    static final int FILES_PER_DIRECTORY = 4;
    private static final DateTimeFormatter DIRECTORY = DateTimeFormatter.ofPattern("'d_'yyyyMMdd-HHmm");
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final DateTimeFormatter KEY = DateTimeFormatter.ofPattern("yyyy/MM/dd/HH");
    /** The eight columns as Spark's schema; {@link #COLUMNS} are the same for the job, user_name from /user/name. */
    static final String SPARK_SCHEMA = "id BIGINT, user STRUCT<name: STRING>, amount DECIMAL(12,2), qty INT, "
            + "score DOUBLE, active BOOLEAN, ts TIMESTAMP, note STRING";
    private static final String COLUMNS = """
            - {name: id, type: bigint}
            - {name: user_name, type: string, from: /user/name}
            - {name: amount, type: "decimal(12,2)"}
            - {name: qty, type: int}
            - {name: score, type: double}
            - {name: active, type: boolean}
            - {name: ts, type: timestamp}
            - {name: note, type: string}""";

    private FileBench() {
    }

    record Options(long lines, int partitions, Path drops, Path home, Path results, Path sparkHome, String server) {
    }

    /** One {@code cat | wc -l} pass: what it counted and how long it took. */
    record CatPass(long lines, long nanos) {
        double linesPerSecond() {
            return lines / (nanos / 1e9);
        }
    }

    /** The Spark child's times: session start, the warm-up pass, the timed job, and the rows it wrote. */
    record SparkRun(long sessionMillis, long warmupMillis, long jobMillis, long jobCpuMillis, long rows,
                    long jvmNanos) {
        double linesPerSecond() {
            return rows / (jobMillis / 1e3);
        }
    }

    /** The drops of one hour: their files, lines and bytes. */
    record Drops(List<Path> files, long lines, long bytes) {
    }

    static void main(String[] args) throws Exception {
        Options options = parse(args);
        Bench.Machine machine = Bench.Machine.describe(options.server(), "postgres");
        System.out.println("machine: " + machine.oneLine());
        try (LoadAverage load = LoadAverage.start()) {
            Drops warmup = ensureDrops(options.drops(), WARMUP_HOUR, WARMUP_LINES);
            Drops drops = ensureDrops(options.drops(), HOUR, options.lines());
            Bench.freshHome(options.home());

            List<CatPass> cats = new ArrayList<>();
            System.out.println("cat files | wc -l (two passes; the first also warms the page cache):");
            cats.add(cat(drops));
            cats.add(cat(drops));

            LoadResult loaded;
            long loadCpuNanos;
            try (BenchLoadgate loadgate = BenchLoadgate.start(options.home(), options.partitions())) {
                Path stage = options.home().resolve("stage");
                Files.createDirectories(stage);
                System.out.printf("warm-up load (%,d lines; not reported) ...%n", warmup.lines());
                loadgate.load("files warm-up", options.partitions(), jobYaml(options, "BENCH_FILES_WARMUP",
                        "lake.bench_files_warmup", stage), KEY.format(WARMUP_HOUR));
                System.out.printf("load of %,d lines with %d partitions ...%n", drops.lines(), options.partitions());
                long cpu = cpuNanos();
                loaded = loadgate.load("files, %d partitions".formatted(options.partitions()), options.partitions(),
                        jobYaml(options, "BENCH_FILES", "lake.bench_files", stage), KEY.format(HOUR));
                loadCpuNanos = cpuNanos() - cpu;
            }
            if (loaded.rows() != drops.lines()) {
                throw new IllegalStateException("the load staged " + loaded.rows() + " rows of " + drops.lines()
                        + " lines");
            }
            System.out.printf("  %.1f s; extraction %,.0f lines/s (workers %,.0f)%n", loaded.wallSeconds(),
                    loaded.extractLedgerRowsPerSecond(), loaded.extractWorkerRowsPerSecond());

            System.out.printf("Spark json -> parquet on local[%d] in its own JVM ...%n", options.partitions());
            SparkRun spark = spark(options, drops);
            System.out.printf("  %,d rows in %.1f s (session %.1f s): %,.0f lines/s%n", spark.rows(),
                    spark.jobMillis() / 1e3, spark.sessionMillis() / 1e3, spark.linesPerSecond());
            if (spark.rows() != drops.lines()) {
                throw new IllegalStateException("Spark wrote " + spark.rows() + " rows of " + drops.lines() + " lines");
            }
            System.out.println("cat files | wc -l again, after the loads:");
            cats.add(cat(drops));

            String section = section(ZonedDateTime.now(ZoneOffset.UTC), machine, load.summary(), options, drops,
                    cats, loaded, loadCpuNanos, spark);
            System.out.println();
            System.out.println(section);
            Report.prepend(options.results(), section);
            System.out.println("written to " + options.results());
        }
    }

    /**
     * The job over the drops, as a user would write it: the hour's files balanced into {@code partitions}, Parquet
     * zstd, the validations of the table benchmark on the file columns (sums, min/max, null counts, the key).
     */
    static String jobYaml(Options options, String jobKey, String table, Path stage) {
        return """
                job_key: %s
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    partitions: %d
                    columns:
                %starget:
                  table: %s
                  business_key_column: load_key
                staging:
                  root: "%s"
                  compression: zstd
                validation:
                  sum: [amount, qty]
                  min: [amount, ts]
                  max: [amount, ts]
                  null_count: [amount, user_name]
                  primary_key: [id]
                recovery:
                  mode: FAIL
                """.formatted(jobKey, options.drops().toUri(), options.partitions(), COLUMNS.indent(6), table,
                stage.toUri());
    }

    /**
     * The hour's Camus directories ({@value #DIRECTORIES} of them, 10 minutes apart, {@value #FILES_PER_DIRECTORY}
     * files each) holding {@code lines} lines, made once and reused while their marker names the same count.
     * Deterministic and a little varied: null names and amounts now and then, notes of 20..79 characters (about 200
     * bytes a line, so 5,000,000 lines are about 1 GB).
     */
    static Drops ensureDrops(Path root, LocalDateTime hour, long lines) throws IOException {
        List<Path> files = new ArrayList<>();
        for (int d = 0; d < DIRECTORIES; d++) {
            for (int f = 0; f < FILES_PER_DIRECTORY; f++) {
                files.add(root.resolve(DIRECTORY.format(hour.plusMinutes(10L * d))).resolve("part-" + f + ".json"));
            }
        }
        Path marker = root.resolve(".bench-" + DIRECTORY.format(hour) + ".lines");
        String expected = Long.toString(lines);
        if (!Files.exists(marker) || !Files.readString(marker).equals(expected)
                || !files.stream().allMatch(Files::isRegularFile)) {
            System.out.printf("writing %,d lines into %d files under %s (once; later runs reuse them) ...%n", lines,
                    files.size(), root);
            Files.deleteIfExists(marker);
            long id = 0;
            for (int i = 0; i < files.size(); i++) {
                long upTo = lines * (i + 1) / files.size();
                Files.createDirectories(files.get(i).getParent());
                try (BufferedWriter out = Files.newBufferedWriter(files.get(i), StandardCharsets.UTF_8)) {
                    StringBuilder line = new StringBuilder(256);
                    for (; id < upTo; id++) {
                        line.setLength(0);
                        line(line, id, hour);
                        out.append(line);
                    }
                }
            }
            Files.writeString(marker, expected);
        }
        long bytes = 0;
        for (Path file : files) {
            bytes += Files.size(file);
        }
        return new Drops(List.copyOf(files), lines, bytes);
    }

    /** Line {@code id} of an hour, with its newline. */
    static void line(StringBuilder out, long id, LocalDateTime hour) {
        long mix = id * 2654435761L & 0x7fffffffL;
        out.append("{\"id\":").append(id).append(",\"user\":{\"name\":");
        if (id % 13 == 0) {
            out.append("null");
        } else {
            out.append("\"customer ").append(id * 104729 % 1_000_003).append('"');
        }
        out.append("},\"amount\":");
        if (id % 97 == 0) {
            out.append("null");
        } else {
            out.append(mix % 10_000_000 / 100).append('.').append((char) ('0' + mix % 10))
                    .append((char) ('0' + mix / 10 % 10));
        }
        out.append(",\"qty\":").append(id * 7919 % 100_000)
                .append(",\"score\":").append((mix % 1_000_000) / 1e4)
                .append(",\"active\":").append(id % 3 != 0)
                .append(",\"ts\":\"").append(TIMESTAMP.format(hour.plusSeconds(id % 3600)))
                .append("\",\"note\":\"note ").append(mix).append(' ').append("x".repeat((int) (id % 60)))
                .append("\"}\n");
    }

    /** {@code cat FILES | wc -l} as a process: the rate at which the lines can merely be read. */
    static CatPass cat(Drops drops) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("sh", "-c", "cat \"$@\" | wc -l", "sh"));
        drops.files().forEach(f -> command.add(f.toString()));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String counted = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        int exit = process.waitFor();
        long nanos = System.nanoTime() - start;
        if (exit != 0 || !counted.equals(Long.toString(drops.lines()))) {
            throw new IllegalStateException("cat | wc -l exited " + exit + " counting " + counted + " lines of "
                    + drops.lines());
        }
        CatPass pass = new CatPass(drops.lines(), nanos);
        System.out.printf("  %,d lines, %,d bytes in %.2f s: %,.0f lines/s%n", drops.lines(), drops.bytes(),
                nanos / 1e9, pass.linesPerSecond());
        return pass;
    }

    /**
     * Spark in a JVM of its own: only Spark's jars (bench/spark-json, built by bench/run), Spark's add-opens options,
     * the same maximum heap as this JVM. Its output goes under the home.
     */
    static SparkRun spark(Options options, Drops drops) throws IOException, InterruptedException {
        Path jvmOptions = options.sparkHome().resolve("target/jvm.options");
        Path jar = options.sparkHome().resolve("target/spark-json.jar");
        if (!Files.exists(jar) || !Files.exists(jvmOptions)) {
            throw new IllegalStateException(jar + " is not built: run bench/run (it builds " + options.sparkHome()
                    + "), or mvn -o -f " + options.sparkHome().resolve("pom.xml") + " package");
        }
        Path out = options.home().resolve("spark");
        String root = options.drops().toAbsolutePath().toString();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "@" + jvmOptions, "-Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m",
                "-cp", jar + ":" + options.sparkHome().resolve("target/lib") + "/*",
                "io.loadgate.bench.spark.SparkJsonToParquet", "local[" + options.partitions() + "]", SPARK_SCHEMA,
                root + "/" + DIRECTORY.format(WARMUP_HOUR).substring(0, 13) + "*/*.json",
                out.resolve("warmup").toString(),
                root + "/" + DIRECTORY.format(HOUR).substring(0, 13) + "*/*.json", out.resolve("hour").toString()));
        long start = System.nanoTime();
        Process child = new ProcessBuilder(command).redirectError(options.home().resolve("spark.log").toFile())
                .start();
        Map<String, Long> figures = new HashMap<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                String[] parts = line.split(" ");
                if (parts.length == 2 && parts[1].matches("\\d+")) {
                    figures.put(parts[0], Long.parseLong(parts[1]));
                }
            }
        }
        int exit = child.waitFor();
        long jvmNanos = System.nanoTime() - start;
        if (exit != 0 || !figures.keySet().containsAll(List.of("SESSION_MS", "WARMUP_MS", "JOB_MS", "JOB_CPU_MS", "ROWS"))) {
            throw new IllegalStateException("the Spark JVM exited " + exit + " having printed " + figures + "; see "
                    + options.home().resolve("spark.log"));
        }
        return new SparkRun(figures.get("SESSION_MS"), figures.get("WARMUP_MS"), figures.get("JOB_MS"),
                figures.get("JOB_CPU_MS"), figures.get("ROWS"), jvmNanos);
    }

    static String section(ZonedDateTime time, Bench.Machine machine, String loadAverage, Options options, Drops drops,
                          List<CatPass> cats, LoadResult load, long loadCpuNanos, SparkRun spark) {
        double cat = cats.stream().mapToDouble(CatPass::linesPerSecond).max().orElseThrow();
        double sparkRate = spark.linesPerSecond();
        double whole = drops.lines() / load.wallSeconds();
        double ratio = whole / sparkRate;
        StringBuilder out = new StringBuilder();
        out.append("## ").append(Bench.date(time)).append(" — files (issue 11): %,d NDJSON lines, nproc %d\n\n"
                .formatted(drops.lines(), machine.cpus()));
        out.append("Machine: ").append(machine.oneLine()).append(".  \n");
        out.append("1-minute load average during the run: ").append(loadAverage).append(".  \n");
        out.append(("Input: one hour of a Camus tree under `%s`, %d directories `d_YYYYMMDD-HHMM` × %d files, "
                + "%,d lines, %,d bytes (%.0f bytes a line), 8 columns (bigint, string at `/user/name`, "
                + "decimal(12,2), int, double, boolean, timestamp, string), uncompressed. Loadgate: a file job "
                + "(`source.files`, ndjson, group_by hour) in %d partitions, %d worker threads, Parquet zstd, "
                + "validations sum/min/max/null_count/primary_key, Iceberg JDBC catalog on the embedded PostgreSQL "
                + "of `%s`, one JVM; one unreported %,d-line warm-up load of the hour before. Spark %s: "
                + "`spark.read().schema(S).json(<hour's files>).write().parquet(out)` on `local[%d]` in a JVM of its "
                + "own (only Spark's jars, same max heap), Parquet snappy (its default), after a warm-up pass over "
                + "the same %,d warm-up lines; rows written counted back from the footers.\n\n")
                .formatted(options.drops(), DIRECTORIES, FILES_PER_DIRECTORY, drops.lines(), drops.bytes(),
                        (double) drops.bytes() / drops.lines(), options.partitions(), options.partitions(),
                        options.home(), WARMUP_LINES, "4.1.0", options.partitions(), WARMUP_LINES));
        out.append("| measure | lines/s | × cat ceiling | × Spark | goal |\n|---|---:|---:|---:|---|\n");
        out.append(row("`cat files \\| wc -l`, best of %d".formatted(cats.size()), cat, cat, sparkRate, ""));
        out.append(row("Loadgate extraction (ledger startedAt → extractCompletedAt)",
                load.extractLedgerRowsPerSecond(), cat, sparkRate, ""));
        out.append(row("Loadgate extraction (workers: first claim → last chunk reported)",
                load.extractWorkerRowsPerSecond(), cat, sparkRate, ""));
        out.append(row("**Loadgate whole load** (submit → success: plan, extract, validate, publish, validate)",
                whole, cat, sparkRate, ratio >= 1.5 ? "≥ 1.5× Spark met" : "≥ 1.5× Spark **missed**"));
        out.append(row("Spark json → parquet (the job; its session start apart)", sparkRate, cat, sparkRate, ""));
        out.append(row("Spark json → parquet including session start (%.1f s)".formatted(spark.sessionMillis() / 1e3),
                drops.lines() / ((spark.jobMillis() + spark.sessionMillis()) / 1e3), cat, sparkRate, ""));
        out.append("\nTimes: whole load %.1f s; Spark job %.1f s (session start %.1f s, warm-up pass %.1f s, its JVM "
                .formatted(load.wallSeconds(), spark.jobMillis() / 1e3, spark.sessionMillis() / 1e3,
                        spark.warmupMillis() / 1e3))
                .append("%.1f s in all); `cat | wc -l` passes %s (two before the loads, one after).\n\n".formatted(
                        spark.jvmNanos() / 1e9, cats.stream().map(c -> "%.2f s".formatted(c.nanos() / 1e9)).toList()));
        double loadCpu = loadCpuNanos / 1e9;
        double sparkCpu = spark.jobCpuMillis() / 1e3;
        out.append("CPU time of each side's JVM (all its threads, GC and JIT included; the ledger's embedded PostgreSQL,")
                .append(" a process of its own, is not in Loadgate's): less sensitive to the other sessions than the")
                .append(" wall.\n\n| side | CPU s | lines per CPU s | × Spark |\n|---|---:|---:|---:|\n")
                .append("| Loadgate whole load | %.1f | %,.0f | %.2f |\n".formatted(loadCpu, drops.lines() / loadCpu,
                        sparkCpu / loadCpu))
                .append("| Spark job | %.1f | %,.0f | 1.00 |\n\n".formatted(sparkCpu, drops.lines() / sparkCpu));
        out.append("Loadgate's phases (from the worker's ledger calls):\n\n| phase | s |\n|---|---:|\n");
        load.phases().forEach((phase, nanos) -> out.append("| %s | %.2f |\n".formatted(phase, nanos / 1e9)));
        return out.append('\n').toString();
    }

    /** This JVM's CPU time, all threads: the ledger, the server and the workers of the in-process Loadgate. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static String row(String name, double rate, double cat, double spark, String goal) {
        return "| %s | %,.0f | %.2f | %.2f | %s |\n".formatted(name, rate, rate / cat, rate / spark, goal);
    }

    static Options parse(String[] args) {
        long lines = 5_000_000;
        int partitions = 2;
        Path drops = Path.of("/tmp/loadgate-bench-files");
        Path home = Path.of("/tmp/loadgate-bench");
        Path results = Path.of("bench/RESULTS.md");
        Path sparkHome = Path.of("bench/spark-json");
        String server = "jdbc:postgresql://127.0.0.1:5432/";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files" -> {
                    // The mode Bench dispatched on.
                }
                case "--lines" -> lines = positive(args, ++i);
                case "--partitions" -> partitions = (int) positive(args, ++i);
                case "--drops" -> drops = Path.of(args[++i]).toAbsolutePath();
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--results" -> results = Path.of(args[++i]);
                case "--spark-home" -> sparkHome = Path.of(args[++i]).toAbsolutePath();
                case "--server" -> server = args[++i].endsWith("/") ? args[i] : args[i] + "/";
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (lines < DIRECTORIES * FILES_PER_DIRECTORY) {
            usage("--lines must be at least " + DIRECTORIES * FILES_PER_DIRECTORY + " (one a file)");
        }
        return new Options(lines, partitions, drops, home, results, sparkHome, server);
    }

    private static long positive(String[] args, int i) {
        if (i >= args.length || !args[i].matches("[1-9][0-9]*")) {
            usage(args[i - 1] + " wants a positive whole number");
        }
        return Long.parseLong(args[i]);
    }

    private static void usage(String problem) {
        System.err.println("bench/run --files: " + problem + """

                usage: bench/run --files [--lines 5000000] [--partitions 2] [--drops /tmp/loadgate-bench-files]
                                         [--home /tmp/loadgate-bench] [--results FILE] [--spark-home bench/spark-json]""");
        System.exit(2);
    }
}
