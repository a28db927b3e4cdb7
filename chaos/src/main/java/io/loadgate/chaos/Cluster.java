package io.loadgate.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The system under test, as an operator would run it, each part its own process of the built distribution: one
 * {@code loadgate server} on PostgreSQL (reached through {@link TcpProxy}), workers and {@code loadgate run --ledger}
 * submitters that reach it through {@link HttpFaultProxy}. Thresholds are short so that recovery happens within a
 * scenario. A ledger that knows {@code recovery.heartbeat_interval} gets 5 s beats and a 20 s {@code stale}; one that
 * does not (its workers beat every 30 s) gets 45 s.
 */
final class Cluster implements AutoCloseable {
    static final String JOB_KEY = "CHAOS_ORDERS";
    /** The ledger tells workers how often to beat; stale and validation_stale must be at least three beats. */
    private static final Duration HEARTBEAT = Duration.ofSeconds(5);
    private static final Duration STALE_WITH_HEARTBEAT = Duration.ofSeconds(20);
    /** Must exceed the 30 s beat of workers whose ledger sets no heartbeat_interval. */
    private static final Duration STALE_WITHOUT_HEARTBEAT = Duration.ofSeconds(45);
    static final Duration PUBLISH_STALE = Duration.ofSeconds(20);
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(25);

    final Path dir;
    final Databases databases;
    final HttpFaultProxy proxy;
    final TcpProxy databaseProxy;
    final LedgerView ledger;
    private final Path root;
    private final Path tokens;
    private final Path config;
    private final Path job;
    private final String workerToken;
    private final String operatorToken;
    private Duration stale;
    private final int ledgerPort;
    private final Map<String, Child> workers = new LinkedHashMap<>();
    private final List<Child> submitters = new ArrayList<>();
    private Child server;
    private int serverStarts;
    private int submitted;

    Cluster(Path root, Path dir, Databases databases) throws IOException {
        this.root = root;
        this.dir = dir;
        this.databases = databases;
        Files.createDirectories(dir.resolve("logs"));
        Files.createDirectories(dir.resolve("stage"));
        Files.createDirectories(dir.resolve("home"));
        workerToken = token();
        operatorToken = token();
        tokens = Files.writeString(dir.resolve("tokens"), "worker=" + workerToken + "\noperator=" + operatorToken
                + "\n");
        ledgerPort = freePort();
        databaseProxy = new TcpProxy(databases.host(), databases.port());
        proxy = HttpFaultProxy.start(ledgerPort);
        ledger = new LedgerView(ledgerPort, workerToken, operatorToken);
        config = dir.resolve("loadgate.yaml");
        job = Files.writeString(dir.resolve("orders.yaml"), """
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.orders
                  split_column: id
                  partitions: 4
                  filter: "day = CAST(:business_key AS date)"
                  fetch_size: 5000
                target:
                  table: %s.%s
                  business_key_column: day
                  database: {jdbc_url: "%s", user: postgres}
                staging:
                  root: "%s"
                  rows_per_chunk: 10000
                  compression: zstd
                validation:
                  sum: [amount, qty]
                  null_count: [label, flag]
                  primary_key: [id]
                recovery:
                  mode: REISSUE
                """.formatted(JOB_KEY, databases.url(databases.source), Databases.TARGET_SCHEMA, Databases.TABLE,
                databases.url(databases.warehouse), stageRoot()));
    }

    private void writeConfig(boolean heartbeatSetting) throws IOException {
        stale = heartbeatSetting ? STALE_WITH_HEARTBEAT : STALE_WITHOUT_HEARTBEAT;
        Files.writeString(config, """
                server: {host: 127.0.0.1, port: %d}
                database: {url: "jdbc:postgresql://127.0.0.1:%d/%s", user: postgres, pool_size: 10}
                auth:
                  token_digests: {worker: ["%s"], operator: ["%s"]}
                  allowed_roots: ["%s"]
                recovery: {mode: REISSUE, max_attempts: 3, stale: %ds, extract_query_timeout: 10s, run_timeout: 10m,
                           validation_stale: 20s, publish_stale: %ds, sweeper_interval: 1s%s}
                dispatch: {ack_timeout: %ds, poll_interval: 1s}
                """.formatted(ledgerPort, databaseProxy.port(), databases.ledger, digest(workerToken),
                digest(operatorToken), stageRoot(), stale.toSeconds(), PUBLISH_STALE.toSeconds(),
                heartbeatSetting ? ", heartbeat_interval: " + HEARTBEAT.toSeconds() + "s" : "",
                ACK_TIMEOUT.toSeconds()));
    }

    /** recovery.stale as this ledger was configured. */
    Duration stale() {
        return stale;
    }

    private String stageRoot() {
        return dir.resolve("stage").toUri().toString();
    }

    /** Starts the ledger the first time: with a heartbeat setting, or without when this ledger refuses the key. */
    void startFirstServer() throws IOException, InterruptedException {
        writeConfig(true);
        try {
            startServer();
        } catch (IllegalStateException e) {
            if (!Files.readString(server.log).contains("heartbeat_interval")) {
                throw e;
            }
            writeConfig(false);
            startServer();
        }
    }

    private void startServer() throws IOException, InterruptedException {
        server = Child.start("ledger", loadgate("server", "--config", config.toString()), environment(),
                dir.resolve("logs/ledger-" + (++serverStarts) + ".log"));
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!ledger.ready()) {
            if (!server.alive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the ledger did not start; see " + server.log);
            }
            Thread.sleep(200);
        }
    }

    Child server() {
        return server;
    }

    /** kill -9 of the ledger; its host then refuses connections, as a dead host's port does. */
    void killServer() throws InterruptedException, IOException {
        server.kill9();
        proxy.refuseConnections();
    }

    void restartServer() throws IOException, InterruptedException {
        startServer();
        proxy.acceptConnections();
    }

    Child startWorker(String node) throws IOException {
        Child worker = Child.start(node, loadgate("worker", "--ledger", proxyUrl(), "--token-file", tokens.toString(),
                        "--threads", "2", "--node", node, "--grace", "5"), environment(),
                dir.resolve("logs/worker-" + node + ".log"));
        workers.put(node, worker);
        return worker;
    }

    Child worker(String node) {
        return workers.get(node);
    }

    List<Child> workers() {
        return List.copyOf(workers.values());
    }

    /** The worker processes named in {@code nodes} are running and not paused (restarted if killed). */
    void healWorkers(List<String> nodes) throws IOException, InterruptedException {
        for (String node : nodes) {
            Child worker = workers.get(node);
            if (worker == null || !worker.alive()) {
                startWorker(node);
            } else {
                worker.resume();
            }
        }
    }

    void stopWorker(String node) throws IOException, InterruptedException {
        Child worker = workers.remove(node);
        if (worker != null) {
            worker.stop(Duration.ofSeconds(10));
        }
    }

    /** {@code loadgate run JOB --business-key KEY --ledger PROXY}: plans, submits and follows one run. */
    Child submit(String businessKey) throws IOException {
        Child submitter = Child.start("submitter-" + businessKey, loadgate("run", job.toString(), "--business-key",
                businessKey, "--ledger", proxyUrl(), "--token-file", tokens.toString()), environment(),
                dir.resolve("logs/submit-" + businessKey + "-" + (++submitted) + ".log"));
        submitters.add(submitter);
        return submitter;
    }

    /** The newest run of a key once {@code condition} holds for it; empty after {@code timeout}. */
    Optional<JsonNode> awaitRun(String businessKey, Predicate<JsonNode> condition, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            List<JsonNode> runs = ledger.runs(JOB_KEY, businessKey);
            if (!runs.isEmpty()) {
                Optional<JsonNode> run = ledger.run(UUID.fromString(runs.get(0).path("runId").asText()));
                if (run.isPresent() && condition.test(run.get())) {
                    return run;
                }
            }
            Thread.sleep(POLL.toMillis());
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }

    static Predicate<JsonNode> status(String... statuses) {
        List<String> wanted = List.of(statuses);
        return run -> wanted.contains(run.path("status").asText());
    }

    /** A partition of the run is being extracted: RUNNING, claimed by a worker, none of its chunks reported yet. */
    static Predicate<JsonNode> extracting() {
        return run -> extractingNode(run).isPresent();
    }

    static Optional<String> extractingNode(JsonNode run) {
        if (!"EXTRACTING".equals(run.path("status").asText())) {
            return Optional.empty();
        }
        for (JsonNode partition : run.path("partitions")) {
            if ("RUNNING".equals(partition.path("status").asText()) && partition.path("fileCount").asInt() == 0
                    && !partition.path("workerNode").isNull()) {
                return Optional.of(partition.path("workerNode").asText());
            }
        }
        return Optional.empty();
    }

    /** Ends the submitters still following their runs (a stuck run's follower would wait forever). */
    List<String> endSubmitters() throws IOException, InterruptedException {
        List<String> ended = new ArrayList<>();
        for (Child submitter : submitters) {
            if (!submitter.waitFor(Duration.ofSeconds(2))) {
                submitter.stop(Duration.ofSeconds(5));
                ended.add(submitter.name + " still following: stopped");
            } else {
                ended.add(submitter.name + " exit " + submitter.exitCode());
            }
        }
        submitters.clear();
        return ended;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (Child submitter : submitters) {
            submitter.stop(Duration.ofSeconds(5));
        }
        for (Child worker : workers.values()) {
            worker.stop(Duration.ofSeconds(10));
        }
        if (server != null) {
            server.stop(Duration.ofSeconds(10));
        }
        proxy.close();
        databaseProxy.close();
    }

    private String proxyUrl() {
        return "http://127.0.0.1:" + proxy.port();
    }

    /** The command bin/loadgate execs, on the distribution the build left in loadgate-cli/target. */
    private List<String> loadgate(String... arguments) {
        Path cli = root.resolve("loadgate-cli/target");
        List<String> command = new ArrayList<>(List.of("java"));
        command.addAll(List.of(System.getenv().getOrDefault("CHAOS_CHILD_JAVA_OPTS",
                "-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1").split(" ")));
        command.addAll(List.of("-cp", cli.resolve("loadgate-cli.jar") + ":" + cli.resolve("lib") + "/*",
                "io.loadgate.cli.Main"));
        command.addAll(List.of(arguments));
        return command;
    }

    private Map<String, String> environment() {
        // A free port for the embedded PostgreSQL, as before it had a fixed default: clusters may run side by side.
        return Map.of("LOADGATE_HOME", dir.resolve("home").toString(), "LOADGATE_LOG_LEVEL", "INFO",
                "LOADGATE_DATABASE__EMBEDDED_PORT", "0");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String token() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
