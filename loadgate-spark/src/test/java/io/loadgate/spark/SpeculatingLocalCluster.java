package io.loadgate.spark;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskState;
import org.apache.spark.executor.Executor;
import org.apache.spark.executor.ExecutorBackend;
import org.apache.spark.resource.ResourceProfile;
import org.apache.spark.scheduler.ExecutorResourcesAmounts;
import org.apache.spark.scheduler.ExternalClusterManager;
import org.apache.spark.scheduler.SchedulerBackend;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.TaskDescription;
import org.apache.spark.scheduler.TaskScheduler;
import org.apache.spark.scheduler.TaskSchedulerImpl;
import org.apache.spark.scheduler.WorkerOffer;
import org.apache.spark.scheduler.cluster.ExecutorInfo;
import org.apache.spark.status.api.v1.ThreadStackTrace;
import org.apache.spark.util.SystemClock;
import scala.Enumeration;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Master {@code speculating-local[N]}: Spark in this process, as {@code local[N]} is, but able to speculate. Local
 * mode never does: its scheduler skips the speculation check ({@code isLocal}), and a speculative copy is never put
 * on the host that runs the original, while local mode has one host. Here the scheduler is a cluster one, and the N
 * cores are N executors of one core each, each its own "host" ({@code host-0}...), all in this JVM sharing its
 * SparkEnv, so Spark launches speculative copies, kills the losing attempt and retries failed tasks
 * ({@code spark.task.maxFailures}) as on a cluster. For tests only.
 */
public final class SpeculatingLocalCluster implements ExternalClusterManager {
    private static final Pattern MASTER = Pattern.compile("speculating-local\\[([0-9]+)]");

    @Override
    public boolean canCreate(String masterUrl) {
        return MASTER.matcher(masterUrl).matches();
    }

    @Override
    public TaskScheduler createTaskScheduler(SparkContext sc, String masterUrl) {
        int maxFailures = sc.conf().getInt("spark.task.maxFailures", 4);
        return new TaskSchedulerImpl(sc, maxFailures, false, new SystemClock());
    }

    @Override
    public SchedulerBackend createSchedulerBackend(SparkContext sc, String masterUrl, TaskScheduler scheduler) {
        Matcher m = MASTER.matcher(masterUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException(masterUrl);
        }
        return new Backend(sc, (TaskSchedulerImpl) scheduler, Integer.parseInt(m.group(1)));
    }

    @Override
    public void initialize(TaskScheduler scheduler, SchedulerBackend backend) {
        ((TaskSchedulerImpl) scheduler).initialize(backend);
    }

    /** N one-core executors in this process; offers are made on one thread, as LocalSchedulerBackend's endpoint does. */
    static final class Backend implements SchedulerBackend, ExecutorBackend {
        private final SparkContext sc;
        private final TaskSchedulerImpl scheduler;
        private final int executorCount;
        private final Map<String, Executor> executors = new ConcurrentHashMap<>();
        private final Map<String, Integer> freeCores = new ConcurrentHashMap<>();
        private final Map<Long, String> taskExecutor = new ConcurrentHashMap<>();
        private final ExecutorService offers = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "speculating-local-offers");
            t.setDaemon(true);
            return t;
        });
        private String appId;

        Backend(SparkContext sc, TaskSchedulerImpl scheduler, int executorCount) {
            this.sc = sc;
            this.scheduler = scheduler;
            this.executorCount = executorCount;
            SchedulerBackend.$init$(this);
        }

        @Override
        public void start() {
            for (int i = 0; i < executorCount; i++) {
                String id = String.valueOf(i);
                String host = "host-" + i;
                executors.put(id, new Executor(id, host, SparkEnv.get(),
                        CollectionConverters.asScala(List.<java.net.URL>of()).toList(), true,
                        (thread, e) -> { }, scala.collection.immutable.Map$.MODULE$.empty()));
                freeCores.put(id, 1);
                sc.listenerBus().post(new SparkListenerExecutorAdded(System.currentTimeMillis(), id,
                        new ExecutorInfo(host, 1, scala.collection.immutable.Map$.MODULE$.empty())));
            }
        }

        @Override
        public void stop() {
            offers.shutdownNow();
            executors.values().forEach(Executor::stop);
        }

        @Override
        public void reviveOffers() {
            if (!offers.isShutdown()) {
                offers.execute(this::makeOffers);
            }
        }

        private void makeOffers() {
            List<WorkerOffer> free = new ArrayList<>();
            freeCores.forEach((id, cores) -> {
                if (cores > 0) {
                    free.add(new WorkerOffer(id, "host-" + id, cores, Option.empty(), ExecutorResourcesAmounts.empty(),
                            ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID()));
                }
            });
            if (free.isEmpty()) {
                return;
            }
            var launched = scheduler.resourceOffers(CollectionConverters.asScala(free).toIndexedSeq(), true);
            for (var perOffer : CollectionConverters.asJava(launched)) {
                for (TaskDescription task : CollectionConverters.asJava(perOffer)) {
                    freeCores.merge(task.executorId(), -1, Integer::sum);
                    taskExecutor.put(task.taskId(), task.executorId());
                    executors.get(task.executorId()).launchTask(this, task);
                }
            }
        }

        @Override
        public void statusUpdate(long taskId, Enumeration.Value state, ByteBuffer data) {
            scheduler.statusUpdate(taskId, state, data);
            if (TaskState.isFinished(state)) {
                String executor = taskExecutor.remove(taskId);
                if (executor != null) {
                    freeCores.merge(executor, 1, Integer::sum);
                }
                reviveOffers();
            }
        }

        @Override
        public void killTask(long taskId, String executorId, boolean interruptThread, String reason) {
            Executor executor = executors.get(executorId);
            if (executor != null) {
                executor.killTask(taskId, interruptThread, reason);
            }
        }

        @Override
        public int defaultParallelism() {
            return executorCount;
        }

        @Override
        public int maxNumConcurrentTasks(ResourceProfile rp) {
            return executorCount;
        }

        @Override
        public Option<ThreadStackTrace> getTaskThreadDump(long taskId, String executorId) {
            return Option.empty();
        }

        @Override
        public void org$apache$spark$scheduler$SchedulerBackend$_setter_$org$apache$spark$scheduler$SchedulerBackend$$appId_$eq(
                String id) {
            this.appId = id;
        }

        @Override
        public String org$apache$spark$scheduler$SchedulerBackend$$appId() {
            return appId;
        }
    }
}
