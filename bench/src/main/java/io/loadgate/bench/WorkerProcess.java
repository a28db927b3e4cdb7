package io.loadgate.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A worker in a JVM of its own, started as the distribution starts one: {@code loadgate worker} with bin/loadgate's
 * class path ({@code loadgate-cli/target}), here with {@code -Xmx1g}, leasing from the benchmark's ledger with a
 * worker token and publishing to the ledger's lakehouse (the worker finds it through {@code LOADGATE_HOME}, as a
 * worker beside a ledger does). Its own process so that its peak RSS is the worker's alone, and its ledger calls are
 * read off its {@code /metrics} ({@code loadgate_worker_ledger_calls_seconds} by method).
 */
final class WorkerProcess implements AutoCloseable {
    /** The CLI worker's long poll (WorkerCommand's lease wait): a poll of a stopped worker can last that long. */
    static final Duration LEASE_WAIT = Duration.ofSeconds(20);
    private static final Pattern METRICS_URL = Pattern.compile("metrics on (http://\\S+/metrics)");
    private static final Pattern CALLS = Pattern.compile(
            "^loadgate_worker_ledger_calls_seconds_(count|sum)\\{([^}]*)\\}\\s+(\\S+)$");
    private static final Pattern METHOD = Pattern.compile("method=\"([^\"]+)\"");
    private static final Duration READY_WITHIN = Duration.ofSeconds(120);
    // A unified-logging gc line's heap before, after and committed: "... 512M->201M(1024M) 5.123ms".
    private static final Pattern HEAP_AFTER_GC = Pattern.compile("\\d+M->(\\d+)M\\((\\d+)M\\)");

    private final Process process;
    private final URI metrics;
    private final Path log;
    private final Path gcLog;
    private final HttpClient http = HttpClient.newHttpClient();

    private WorkerProcess(Process process, URI metrics, Path log, Path gcLog) {
        this.process = process;
        this.metrics = metrics;
        this.log = log;
        this.gcLog = gcLog;
    }

    /**
     * Starts {@code loadgate worker --threads threads} and waits for its start line.
     *
     * @param cliTarget the built distribution's directory: {@code loadgate-cli.jar} and {@code lib/}
     */
    static WorkerProcess start(Path cliTarget, BenchLoadgate ledger, int threads, String maxHeap, String node)
            throws IOException, InterruptedException {
        Path jar = cliTarget.resolve("loadgate-cli.jar");
        if (!Files.isRegularFile(jar) || !Files.isDirectory(cliTarget.resolve("lib"))) {
            throw new IllegalStateException(jar + " or its lib/ is missing: build the distribution first"
                    + " (bench/run does: mvn -Pbench package)");
        }
        Path home = ledger.home();
        Path tokens = home.resolve("bench-worker-token");
        Files.writeString(tokens, "worker=" + ledger.workerToken() + "\n");
        Path log = home.resolve("worker-" + node + ".log");
        Path gcLog = home.resolve("worker-" + node + "-gc.log");
        Files.deleteIfExists(gcLog);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-Xlog:gc:file=" + gcLog));
        // A profiler for the worker, as BENCH_JAVA_OPTS is for the bench JVM ("%n" becomes the worker's node).
        String workerOptions = System.getenv().getOrDefault("BENCH_WORKER_JAVA_OPTS", "").replace("%n", node);
        if (!workerOptions.isBlank()) {
            command.addAll(List.of(workerOptions.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", jar + ":" + cliTarget.resolve("lib") + "/*", "io.loadgate.cli.Main", "worker",
                "--ledger", ledger.ledgerUrl(), "--token-file", tokens.toString(), "--threads",
                Integer.toString(threads), "--node", node, "--grace", "10", "--metrics-port", "0"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("LOADGATE_"));
        builder.environment().putAll(ledger.environment());
        Process process = builder.start();
        try {
            return new WorkerProcess(process, awaitMetricsUrl(process, log), log, gcLog);
        } catch (RuntimeException | IOException | InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    private static URI awaitMetricsUrl(Process process, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = METRICS_URL.matcher(Files.readString(log));
            if (m.find()) {
                return URI.create(m.group(1));
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the worker exited " + process.exitValue() + " before it started: "
                        + Files.readString(log));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the worker did not start within " + READY_WITHIN + ": " + log);
    }

    /** The worker's {@code -Xlog:gc} file. */
    Path gcLog() {
        return gcLog;
    }

    long pid() {
        return process.pid();
    }

    /** {@code VmHWM} of {@code /proc/PID/status}: the process's peak resident set so far, in KiB. */
    long peakRssKib() throws IOException {
        return status("VmHWM");
    }

    /** How many lines the worker's {@code -Xlog:gc} has so far: where {@link #heapPeaks} of what follows begins. */
    long gcLogLines() throws IOException {
        if (!Files.exists(gcLog)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(gcLog)) {
            return lines.count();
        }
    }

    /**
     * The worker's heap since line {@code from} of its {@code -Xlog:gc}: {@code afterMarkingMib}, the most heap a marking left in
     * use (the heap after each G1 remark or full collection: what was reachable then, plus what was allocated while
     * marking, which unlike RSS does not follow G1's sizing of the heap to the allocation rate; a young collection's
     * figure is not used, it still counts the old generation's garbage, which only a marking finds), and
     * {@code committedMib}, the most heap G1 had committed after any collection: most of RSS, and what G1 sizes by
     * its pause-time ratio rather than by what is reachable. Not from the log's start: the JVM commits its initial
     * heap (1/64 of the machine's memory, 380 MiB on the bench machine) before its first collection, and G1 gives
     * most of it up at its first marking, during the warm-ups; a peak over the whole log was that figure at every size.
     */
    HeapPeaks heapPeaks(long from) throws IOException {
        if (!Files.exists(gcLog)) {
            return new HeapPeaks(0, 0);
        }
        long afterMarking = 0;
        long committed = 0;
        List<String> lines = Files.readAllLines(gcLog);
        for (String line : lines.subList((int) Math.min(from, lines.size()), lines.size())) {
            Matcher m = HEAP_AFTER_GC.matcher(line);
            if (m.find()) {
                committed = Math.max(committed, Long.parseLong(m.group(2)));
                if (line.contains("Pause Remark") || line.contains("Pause Full")) {
                    afterMarking = Math.max(afterMarking, Long.parseLong(m.group(1)));
                }
            }
        }
        return new HeapPeaks(afterMarking, committed);
    }

    record HeapPeaks(long afterMarkingMib, long committedMib) {
    }

    private long status(String field) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + process.pid() + "/status")).stream()
                .filter(l -> l.startsWith(field + ":")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")))
                .orElseThrow(() -> new IllegalStateException("no " + field + " in /proc/" + process.pid() + "/status"));
    }

    /** A method's calls so far: how many, and their time summed, as the worker's client timed them. */
    record CallTotals(long count, double seconds) {
        CallTotals plus(CallTotals other) {
            return new CallTotals(count + other.count, seconds + other.seconds);
        }
    }

    /** The worker's ledger calls so far, by method (successful and failed), from its Prometheus endpoint. */
    Map<String, Long> ledgerCalls() throws IOException, InterruptedException {
        Map<String, Long> counts = new TreeMap<>();
        ledgerCallTotals().forEach((method, totals) -> counts.put(method, totals.count()));
        return counts;
    }

    /** {@link #ledgerCalls()} with the time they took. */
    Map<String, CallTotals> ledgerCallTotals() throws IOException, InterruptedException {
        String body = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<String, CallTotals> calls = new TreeMap<>();
        for (String line : body.split("\n")) {
            Matcher m = CALLS.matcher(line.trim());
            if (m.matches()) {
                Matcher method = METHOD.matcher(m.group(2));
                if (method.find()) {
                    double value = Double.parseDouble(m.group(3));
                    calls.merge(method.group(1), m.group(1).equals("count") ? new CallTotals((long) value, 0)
                            : new CallTotals(0, value), CallTotals::plus);
                }
            }
        }
        return calls;
    }

    /** SIGTERM (the worker finishes its steps, up to its grace), then waits for the exit. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The worker's output, for a failed measurement's message. */
    Optional<String> logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return Optional.of(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
