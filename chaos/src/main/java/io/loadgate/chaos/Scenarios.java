package io.loadgate.chaos;

import static io.loadgate.chaos.Cluster.extracting;
import static io.loadgate.chaos.Cluster.status;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.chaos.HttpFaultProxy.Fault;
import io.loadgate.chaos.Scenario.Stage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** The scenarios, in the order they run. Each loads its own business keys, so one's stuck run cannot block another. */
final class Scenarios {
    static final List<String> WORKERS = List.of("w1", "w2");
    private static final String RUN = "/v1/runs/[^/]+";
    /** A PostgreSQL snapshot dies with its exporter: partitions not yet reading it cannot, and the run says so. */
    private static final Set<String> SNAPSHOT_LOST = Set.of("SUCCESS", "FAILED_SNAPSHOT_EXPIRED");
    /**
     * A publisher killed before its commit landed committed nothing: the probe finds no token once publish_stale has
     * passed and the run ends FAILED_PUBLISH, its key free again; killed after it, the probe finds the token and the
     * run goes on to SUCCESS. Either is settled without an operator; PUBLISH_UNKNOWN left waiting is not.
     */
    private static final Set<String> PUBLISH_KILLED = Set.of("SUCCESS", "FAILED_PUBLISH");

    private Scenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("duplicate-create", "POST /v1/runs delivered twice, the second answer returned", true,
                        stage -> {
                            stage.cluster.proxy.arm("POST", "/v1/runs", Fault.DELIVER_TWICE, 1);
                            stage.cluster.submit(stage.newKey());
                        }),
                new Scenario("worker-kill-extract", "kill -9 of a worker extracting a partition (REISSUE)", false,
                        Scenarios::killExtractingWorker),
                new Scenario("lost-answer-validation-start", "answer to validation/start lost after the commit", true,
                        stage -> {
                            stage.cluster.proxy.arm("POST", RUN + "/validation/start", Fault.DROP_ANSWER, 1);
                            stage.cluster.submit(stage.newKey());
                        }),
                new Scenario("ledger-kill", "kill -9 of the ledger during extraction, restarted 5 s later", true,
                        Scenarios::killLedger),
                new Scenario("worker-kill-validate", "kill -9 of the workers during staging validation", false,
                        stage -> killWorkersAt(stage, "STAGE_VALIDATING")),
                new Scenario("worker-kill-publish", "kill -9 of the workers during publish", false, PUBLISH_KILLED,
                        stage -> killWorkersAt(stage, "PUBLISHING")),
                new Scenario("zombie-publisher", "publisher SIGSTOPped at PUBLISHING past publish_stale; settled;"
                        + " source changed; newer run; SIGCONT", true, Scenarios::zombiePublisher),
                new Scenario("worker-stop-extract", "SIGSTOP of an extracting worker until its partition is reissued,"
                        + " then SIGCONT", false, Scenarios::pauseExtractingWorker),
                new Scenario("ledger-db-cut", "the ledger's database unreachable for 10 s during extraction", false,
                        stage -> {
                            String key = stage.newKey();
                            stage.cluster.submit(key);
                            if (stage.await(key, "extraction", extracting()).isPresent()) {
                                stage.cluster.databaseProxy.cut(Duration.ofSeconds(10));
                                stage.note("ledger database cut for 10 s");
                                Thread.sleep(10_000);
                            }
                        }),
                new Scenario("network-dark", "the network to the ledger dark for 10 s during extraction", false,
                        stage -> {
                            String key = stage.newKey();
                            stage.cluster.submit(key);
                            if (stage.await(key, "extraction", extracting()).isPresent()) {
                                stage.cluster.proxy.goDark(Duration.ofSeconds(10));
                                Thread.sleep(10_000);
                            }
                        }),
                new Scenario("chunk-report-lost", "a chunk report dropped, another's answer lost", false, stage -> {
                    stage.cluster.proxy.arm("POST", RUN + "/partitions/[^/]+/chunks", Fault.DROP_REQUEST, 1);
                    stage.cluster.proxy.arm("POST", RUN + "/partitions/[^/]+/chunks", Fault.DROP_ANSWER, 1);
                    stage.cluster.submit(stage.newKey());
                }),
                new Scenario("lost-answer-publish-result", "answer to publish/result lost after the commit", false,
                        stage -> {
                            stage.cluster.proxy.arm("POST", RUN + "/publish/result", Fault.DROP_ANSWER, 1);
                            stage.cluster.submit(stage.newKey());
                        }),
                new Scenario("snapshot-backend-killed", "the source backend holding the exported snapshot"
                        + " terminated during extraction", false, SNAPSHOT_LOST, stage -> {
                    String key = stage.newKey();
                    stage.cluster.submit(key);
                    if (stage.await(key, "extraction", status("EXTRACTING")).isPresent()) {
                        stage.note("terminated source backend " + stage.cluster.databases.terminateSnapshotBackend());
                    }
                }),
                new Scenario("submitter-kill", "kill -9 of the submitter (the snapshot's holder) during extraction",
                        false, SNAPSHOT_LOST, stage -> {
                    String key = stage.newKey();
                    Child submitter = stage.cluster.submit(key);
                    if (stage.await(key, "extraction", extracting()).isPresent()) {
                        submitter.kill9();
                        stage.note("kill -9 " + submitter);
                    }
                }));
    }

    private static void killExtractingWorker(Stage stage) throws Exception {
        String key = stage.newKey();
        stage.cluster.submit(key);
        Optional<JsonNode> run = stage.await(key, "extraction", extracting());
        if (run.isPresent()) {
            String node = Cluster.extractingNode(run.get()).orElseThrow();
            stage.cluster.worker(node).kill9();
            stage.note("kill -9 " + node + " while it extracted; restarted");
            stage.cluster.startWorker(node);
        }
    }

    private static void pauseExtractingWorker(Stage stage) throws Exception {
        String key = stage.newKey();
        stage.cluster.submit(key);
        Optional<JsonNode> run = stage.await(key, "extraction", extracting());
        if (run.isEmpty()) {
            return;
        }
        String node = Cluster.extractingNode(run.get()).orElseThrow();
        stage.cluster.worker(node).pause();
        stage.note("SIGSTOP " + node + " while it extracted");
        stage.await(key, "reissue", r -> reissued(r) || !"EXTRACTING".equals(r.path("status").asText()),
                stage.cluster.stale().plus(Duration.ofSeconds(45)));
        stage.cluster.worker(node).resume();
        stage.note("SIGCONT " + node);
    }

    private static boolean reissued(JsonNode run) {
        for (JsonNode partition : run.path("partitions")) {
            if (partition.path("attemptCount").asInt() > 1) {
                return true;
            }
        }
        return false;
    }

    private static void killLedger(Stage stage) throws Exception {
        String key = stage.newKey();
        stage.cluster.submit(key);
        if (stage.await(key, "extraction", extracting()).isPresent()) {
            stage.cluster.killServer();
            stage.note("kill -9 ledger");
            Thread.sleep(5_000);
            stage.cluster.restartServer();
            stage.note("ledger restarted");
        }
    }

    /** Which worker runs a validation or a publish is not in the run's view, so every worker dies. */
    private static void killWorkersAt(Stage stage, String moment) throws Exception {
        String key = stage.newKey();
        stage.cluster.submit(key);
        if (stage.await(key, moment, status(moment)).isPresent()) {
            for (String node : WORKERS) {
                stage.cluster.worker(node).kill9();
            }
            stage.note("kill -9 " + String.join(", ", WORKERS) + " at " + moment + "; restarted");
            stage.cluster.healWorkers(WORKERS);
        }
    }

    /**
     * Run A's publisher is frozen at PUBLISHING until the ledger gives the publish up; the run is settled, the source
     * changes, run B loads the new rows on a third worker, and then A's publisher wakes: the target must hold B's.
     */
    private static void zombiePublisher(Stage stage) throws Exception {
        String key = stage.newKey();
        stage.cluster.submit(key);
        Optional<JsonNode> a = stage.await(key, "publish", status("PUBLISHING"));
        if (a.isEmpty()) {
            return;
        }
        UUID runA = UUID.fromString(a.get().path("runId").asText());
        // Frozen inside its transaction, the publisher also holds the key's lock and the rows it deleted: the case
        // that kept run B waiting until the ledger gave B up too, before B's publish ended the frozen session.
        boolean inside = stage.cluster.databases.awaitWarehouseWrite(Duration.ofSeconds(30));
        for (String node : WORKERS) {
            stage.cluster.worker(node).pause();
        }
        stage.note("SIGSTOP " + String.join(", ", WORKERS) + " with run A " + runA + " PUBLISHING"
                + (inside ? ", inside its transaction on the warehouse" : ", no transaction on the warehouse seen"));
        stage.cluster.startWorker("w3");
        Duration settle = Cluster.PUBLISH_STALE.plus(Duration.ofSeconds(60));
        Optional<JsonNode> given = stage.await(key, "publish_stale", r -> !"PUBLISHING".equals(r.path("status")
                .asText()), settle);
        if (given.isPresent() && "PUBLISH_UNKNOWN".equals(given.get().path("status").asText())) {
            // A probe may settle it; else the operator does, as docs/operations.md says: look at the target first.
            Optional<JsonNode> probed = stage.cluster.awaitRun(key, r -> !"PUBLISH_UNKNOWN".equals(r.path("status")
                    .asText()), Duration.ofSeconds(15));
            if (probed.isEmpty()) {
                boolean landed = stage.cluster.databases.publishedRuns(key).contains(runA);
                String resolution = landed ? "PUBLISHED" : "FAILED_PUBLISH";
                stage.note("operator resolves A as " + resolution + ": "
                        + stage.cluster.ledger.resolve(runA, resolution, "chaos: target checked by the suite"));
            } else {
                stage.note("A settled without the operator: " + probed.get().path("status").asText());
            }
        }
        if (stage.await(key, "A terminal", r -> !LedgerView.ACTIVE.contains(r.path("status").asText()),
                Duration.ofSeconds(60)).isEmpty()) {
            stage.cluster.healWorkers(WORKERS);
            return;
        }
        stage.changeSource(key);
        stage.cluster.submit(key);
        Optional<JsonNode> b = stage.await(key, "run B terminal", r -> !runA.toString().equals(r.path("runId")
                .asText()) && !LedgerView.ACTIVE.contains(r.path("status").asText()), Duration.ofSeconds(150));
        b.ifPresent(run -> stage.note("run B " + run.path("runId").asText() + " " + run.path("status").asText()));
        stage.cluster.healWorkers(WORKERS);
        stage.note("SIGCONT " + String.join(", ", WORKERS));
        // The woken publisher finishes whatever it was doing within seconds; give it time before judging.
        Thread.sleep(15_000);
        stage.cluster.stopWorker("w3");
    }
}
