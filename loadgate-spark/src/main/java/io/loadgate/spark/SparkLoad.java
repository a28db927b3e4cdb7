package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.submit.RunSubmitter;
import io.loadgate.worker.submit.TargetChecks;
import io.loadgate.worker.target.Targets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One load run on Spark. The driver does what {@code loadgate run} does before extraction — opens the source's
 * snapshot and keeps it open (PostgreSQL forgets an exported snapshot with the transaction that made it), plans the
 * partitions, creates the run and registers the manifest — then runs one Spark task per partition
 * ({@link PartitionAttempts}), whose executors import the snapshot by its reference. The run's executor is
 * {@link Executor#SPARK}: the ledger dispatches none of its partitions (a worker of the same ledger that took one would
 * race the tasks), and the driver beats the run while it lives, so that the sweeper ends the run if the driver dies.
 * Staging validation, publish and target validation are the ledger's dispatches as ever, taken by a worker in the
 * driver that takes only those steps (or by any other worker of the ledger); the driver follows the run to its end as
 * {@code loadgate run} does.
 *
 * <p>Spark's retries and speculation may run a partition's task more than once, at once or one after another: the
 * ledger's claim decides which attempt's files count, and only the ledger's file list is ever published.
 */
public final class SparkLoad implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SparkLoad.class);
    private static final EnumSet<DispatchType> DRIVER_STEPS = EnumSet.of(DispatchType.VALIDATE_RUN,
            DispatchType.PUBLISH_RUN, DispatchType.VALIDATE_TARGET, DispatchType.PROBE_PUBLISH);

    private final JavaSparkContext spark;
    private final LedgerClient ledger;
    private final ExecutorSettings executors;
    private final TargetCatalogs catalogs;
    private final Map<String, String> environment;
    private final TaskHook hook;
    // The driver's step workers of runs that have returned, still stopping: a stopping worker waits out its lease
    // poll (the lease wait, 1 s, begun as the run's last step ended) and hands back what the poll brings. The caller
    // of run() has its outcome by then and need not wait for that; close() does.
    private final List<Thread> stopping = new CopyOnWriteArrayList<>();

    /**
     * @param ledger the driver's client of the ledger ({@code executors} names the same ledger for the tasks)
     * @param catalogs the catalogs the driver publishes through
     * @param environment where the jobs' {@code password_env} variables are read, in the driver
     */
    public SparkLoad(JavaSparkContext spark, LedgerClient ledger, ExecutorSettings executors, TargetCatalogs catalogs,
                     Map<String, String> environment) {
        this(spark, ledger, executors, catalogs, environment, TaskHook.NONE);
    }

    /** A load whose tasks talk to the ledger through {@code hook} (a test's stall or crash of one attempt). */
    public SparkLoad(JavaSparkContext spark, LedgerClient ledger, ExecutorSettings executors, TargetCatalogs catalogs,
                     Map<String, String> environment, TaskHook hook) {
        this.spark = requireNonNull(spark, "spark is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.executors = requireNonNull(executors, "executors is null");
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
        this.environment = Map.copyOf(environment);
        this.hook = requireNonNull(hook, "hook is null");
    }

    /** How a load ended: the run as the ledger last showed it, and what each Spark attempt that returned did. */
    public record Result(RunView run, List<PartitionResult> tasks) {
        public Result {
            requireNonNull(run, "run is null");
            tasks = List.copyOf(tasks);
        }
    }

    /**
     * Runs the job for {@code businessKey} to its end. The driver's step worker stops after the return; {@link #close}
     * waits for it.
     *
     * @throws JobSpecException before any run exists when the source's snapshot cannot be shared with executors
     *     (MariaDB: its snapshot lives in the connections of the process that took it; load it with
     *     {@code loadgate run}, whose workers read it in that process)
     */
    public Result run(JobSpec job, String jobYaml, String businessKey) throws InterruptedException {
        if (!Sources.forJob(job, environment).snapshotSharedAcrossProcesses()) {
            throw new JobSpecException("job " + job.jobKey() + ": the source's snapshot cannot be read by Spark"
                    + " executors in other processes (MariaDB holds it in the planner's own connections); load it"
                    + " with loadgate run instead");
        }
        SourceCache sources = new SourceCache(environment);
        Configuration hadoop = new Configuration();
        RunSubmitter submitter = new RunSubmitter(ledger, sources, environment,
                new TargetChecks(new Targets(catalogs, environment, hadoop)));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgate-driver-heartbeat");
            t.setDaemon(true);
            return t;
        });
        WorkerContext context = new WorkerContext(ledger, "spark-driver-" + ProcessHandle.current().pid(), hadoop,
                new WorkerContext.Shared(new RunContexts(ledger), sources, catalogs, timer, WorkerMetrics.off()),
                executors.heartbeatInterval(), Duration.ofSeconds(1));
        Worker driverSteps = Worker.start(context, 1, DRIVER_STEPS);
        ScheduledFuture<?> beats = null;
        try {
            RunSubmitter.Submission submission = submitter.submit(job, jobYaml, businessKey, Executor.SPARK);
            RunId runId = submission.runId();
            beats = beatRun(runId, context, timer);
            List<PartitionTask> tasks = submission.plan().partitions().stream()
                    .map(p -> PartitionTask.of(runId, submission.plan().snapshotRef(), p)).toList();
            LOG.info("run {}: {} partition(s) as Spark tasks", runId, tasks.size());
            PartitionAttempts body = new PartitionAttempts(executors, hook);
            String group = "Loadgate " + job.jobKey() + " " + submission.businessKey();
            // One slice per partition: Spark's task i is the manifest's partition i. The job group is a property of
            // the thread that starts the job, so it is set on the pool thread that does (the beat cancels by it).
            CompletableFuture<List<PartitionResult>> extraction = CompletableFuture.supplyAsync(() -> {
                spark.setJobGroup("loadgate-" + runId, group, true);
                try {
                    return spark.parallelize(tasks, Math.max(1, tasks.size())).map(body).collect();
                } finally {
                    spark.clearJobGroup();
                }
            });
            extraction.whenComplete((done, failed) -> {
                if (failed != null) {
                    failExtraction(runId, failed);
                }
            });
            // Closes the snapshot once extraction is over, and fails the run if the snapshot is lost first.
            RunView end = new RunFollower(ledger, Duration.ofMillis(250), Duration.ofSeconds(30))
                    .follow(runId, submission, run -> { });
            List<PartitionResult> results;
            try {
                results = extraction.get();
            } catch (ExecutionException e) {
                results = List.of();
            }
            return new Result(end, results);
        } finally {
            if (beats != null) {
                beats.cancel(false);
            }
            // The timer beats the worker's steps too: it ends once they have.
            Thread stop = new Thread(() -> {
                driverSteps.stop(Duration.ofSeconds(30));
                timer.shutdownNow();
                sources.close();
            }, "loadgate-driver-steps-stop");
            stop.setDaemon(true);
            stop.start();
            stopping.add(stop);
        }
    }

    /** Waits until the driver's step worker of every run that returned has stopped. */
    @Override
    public void close() throws InterruptedException {
        for (Thread stop : stopping) {
            stop.join();
        }
        stopping.clear();
    }

    /**
     * Beats the run from the driver until {@link #run} returns (it cancels the beats): no worker takes a Spark run's
     * partitions, so the ledger learns only from these beats (and its tasks' own) that someone will still run them.
     * As often as the ledger expects a heartbeat, or the executors' own interval when that is shorter.
     */
    private ScheduledFuture<?> beatRun(RunId runId, WorkerContext context, ScheduledExecutorService timer) {
        Long ledgerMillis = null;
        try {
            ledgerMillis = ledger.heartbeatRun(runId).heartbeatIntervalMillis();
        } catch (RuntimeException e) {
            // The scheduled beats go on at the executors' interval; the run stays the driver's meanwhile.
            LOG.warn("run {}: the driver's first heartbeat failed: {}", runId, e.getMessage());
        }
        long every = context.heartbeatInterval(ledgerMillis).toMillis();
        return timer.scheduleWithFixedDelay(new DriverBeat(ledger, runId,
                () -> spark.cancelJobGroup("loadgate-" + runId)), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * The Spark job failed (a task failed spark.task.maxFailures times): no attempt is left to finish a partition,
     * so the run fails now rather than waiting for the sweeper's run timeout.
     */
    private void failExtraction(RunId runId, Throwable failure) {
        String message = Messages.fit("the Spark job of the run failed: " + failure.getMessage());
        LOG.warn("run {}: {}", runId, message);
        try {
            ledger.failRun(runId, new FailRun(RunStatus.EXTRACTING, RunStatus.FAILED_EXTRACT, "EXTRACT",
                    "SPARK_JOB_FAILED", message));
        } catch (LedgerCallException e) {
            // RUN_STATUS_MISMATCH: extraction had ended anyway (every partition done, or the run failed first).
            LOG.warn("run {}: failing it after the Spark job failed was refused: {}", runId, e.getMessage());
        }
    }
}
