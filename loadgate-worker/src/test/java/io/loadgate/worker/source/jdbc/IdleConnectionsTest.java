package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Partitions of a real PostgreSQL source read on connections kept between them: which are kept, what a kept one
 * carries over (nothing of the session), and when they end.
 */
class IdleConnectionsTest {
    private static final String BUSINESS_KEY = "XX";
    private static TestDatabase db;

    @BeforeAll
    static void createSource() throws SQLException {
        db = TestDatabases.create();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.events (row_id integer NOT NULL, id integer, label text)");
            s.execute("INSERT INTO public.events SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g END, 'label-' || g"
                    + " FROM generate_series(1, 20000) g");
            s.execute("ANALYZE public.events");
        }
    }

    @BeforeEach
    void noSessionOfAnEarlierTestLeft() {
        await().atMost(Duration.ofSeconds(10)).until(() -> idleSessions().isEmpty());
    }

    @Test
    void aPartitionReadToTheEndLeavesItsSessionResetForTheNextAndOneStoppedHalfWayEndsIt() throws Exception {
        // The job's own SQL changes its session, as a function it calls might: a setting (undone with the read's
        // transaction) and a session-level advisory lock (which outlives it; each session its own, or the planner's
        // session, which runs the query first, would hold the only one). The next read must find neither.
        SourceSpec spec = new SourceSpec(db.jdbcUrl(), db.user(), null, null, "SELECT row_id, id,"
                + " set_config('application_name', 'set-by-the-job', false) || pg_try_advisory_lock(pg_backend_pid())::text AS label"
                + " FROM public.events", null, "id", 2, null, 1_000);
        try (IdleConnections idle = new IdleConnections(Duration.ofMinutes(5), Clock.systemUTC())) {
            Source source = new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of(), idle);
            try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
                String snapshot = holder.plan().snapshotRef();
                Partition first = holder.plan().partitions().get(0);
                Partition second = holder.plan().partitions().get(1);

                assertThat(readAll(source, snapshot, first)).isEqualTo(first.expectedRowCount());
                assertThat(idle.size()).isEqualTo(1);
                List<Session> kept = idleSessions();
                assertThat(kept.get(0).applicationName()).as("the session as it started, not as the job left it")
                        .isEqualTo("loadgate-worker");
                assertThat(advisoryLocks(kept.get(0).pid())).as("the job's advisory lock went with its read").isZero();

                assertThat(readAll(source, snapshot, second)).isEqualTo(second.expectedRowCount());
                assertThat(idleSessions()).as("the next partition ran on the same server process").isEqualTo(kept);

                try (PartitionRows rows = source.readPartition(snapshot, first, BUSINESS_KEY)) {
                    for (int i = 0; i < 10; i++) {
                        assertThat(rows.next()).isTrue();
                    }
                }
                assertThat(idle.size()).as("a COPY stopped half-way: its connection is closed").isZero();
                await().atMost(Duration.ofSeconds(10)).until(() -> !backendAlive(kept.get(0).pid()));

                assertThat(readAll(source, snapshot, first)).isEqualTo(first.expectedRowCount());
                List<Session> renewed = idleSessions();
                assertThat(renewed).hasSize(1).doesNotContainAnyElementsOf(kept);

                // The server ends the kept session (a restart, an idle timeout, an operator): the next read opens
                // another instead of failing.
                terminate(renewed.get(0).pid());
                assertThat(readAll(source, snapshot, second)).isEqualTo(second.expectedRowCount());
                assertThat(idleSessions()).hasSize(1).doesNotContainAnyElementsOf(renewed);
            }
            idle.close();
            assertThat(idle.size()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> idleSessions().isEmpty());
        }
    }

    @Test
    void aPlansConnectionIsKeptOnceItsSnapshotIsReleasedAndALostOneIsNot() throws Exception {
        try (IdleConnections idle = new IdleConnections(Duration.ofMinutes(5), Clock.systemUTC())) {
            Source source = new PostgresSnapshotSource(events(2), ValidationSpec.COUNT_ONLY, Map.of(), idle);
            int planner;
            try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
                planner = snapshotHolder();
                assertThat(holder.isAlive()).isTrue();
            }
            assertThat(idle.size()).isEqualTo(1);
            assertThat(idleSessions()).as("kept, holding no transaction and no snapshot")
                    .containsExactly(new Session(planner, "loadgate-worker"));

            try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
                assertThat(snapshotHolder()).as("the next plan runs on the same server process").isEqualTo(planner);
                assertThat(idle.size()).isZero();
                // What a restart of the source does to a run's snapshot (docs/operations.md, "Snapshot lost").
                terminate(planner);
                assertThat(holder.isAlive()).isFalse();
            }
            assertThat(idle.size()).as("a connection the server ended is not kept").isZero();
        }
    }

    @Test
    void aConnectionUnusedForTheIdleTimeoutIsClosedWithoutAnotherRead() throws Exception {
        SourceSpec spec = events(2);
        try (IdleConnections idle = new IdleConnections(Duration.ofMillis(300), Clock.systemUTC())) {
            Source source = new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of(), idle);
            try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
                Partition first = holder.plan().partitions().get(0);
                assertThat(readAll(source, holder.plan().snapshotRef(), first)).isEqualTo(first.expectedRowCount());
            }
            assertThat(idle.size()).as("the partition's connection and the plan's").isEqualTo(2);
            await().atMost(Duration.ofSeconds(10)).until(() -> idle.size() == 0 && idleSessions().isEmpty());
        }
    }

    @Test
    void threadsReadingAtOnceNeverShareAConnectionAndKeepNoMoreThanTheyUsed() throws Exception {
        int threads = 6;
        try (IdleConnections idle = new IdleConnections(Duration.ofMinutes(5), Clock.systemUTC())) {
            Source source = new PostgresSnapshotSource(events(3), ValidationSpec.COUNT_ONLY, Map.of(), idle);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
                String snapshot = holder.plan().snapshotRef();
                List<Partition> partitions = holder.plan().partitions();
                List<Future<?>> readers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int offset = t;
                    readers.add(pool.submit(() -> {
                        for (int i = 0; i < 15; i++) {
                            Partition partition = partitions.get((offset + i) % partitions.size());
                            // Every third read stops early, so closing and keeping race too.
                            if ((offset + i) % 3 == 0) {
                                try (PartitionRows rows = source.readPartition(snapshot, partition, BUSINESS_KEY)) {
                                    rows.next();
                                }
                            } else {
                                assertThat(readAll(source, snapshot, partition))
                                        .as("rows of %s", partition.partitionId())
                                        .isEqualTo(partition.expectedRowCount());
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> reader : readers) {
                    reader.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(idle.size()).as("the readers' and the plan's").isBetween(2, threads + 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> idleSessions().size() == idle.size());
        }
    }

    private record Session(int pid, String applicationName) {
    }

    private static SourceSpec events(int partitions) {
        return new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, null, "id", partitions, null, 1_000);
    }

    private static long readAll(Source source, String snapshot, Partition partition) {
        long rows = 0;
        try (PartitionRows read = source.readPartition(snapshot, partition, BUSINESS_KEY)) {
            while (read.next()) {
                rows++;
            }
        }
        return rows;
    }

    /** The source's sessions outside a transaction: the kept ones (the planner's is in its snapshot's transaction). */
    private static List<Session> idleSessions() throws SQLException {
        List<Session> sessions = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT pid, application_name FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'
                  AND application_name IN ('loadgate-worker', 'set-by-the-job') ORDER BY pid""")) {
            while (rs.next()) {
                sessions.add(new Session(rs.getInt(1), rs.getString(2)));
            }
        }
        return sessions;
    }

    /** The one session in a transaction that holds a snapshot: the planner's. */
    private static int snapshotHolder() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT pid FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL""")) {
            assertThat(rs.next()).as("a session holds a snapshot").isTrue();
            int pid = rs.getInt(1);
            assertThat(rs.next()).as("only one session holds a snapshot").isFalse();
            return pid;
        }
    }

    private static int advisoryLocks(int pid) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = " + pid)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static boolean backendAlive(int pid) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    private static void terminate(int pid) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(" + pid + ")");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !backendAlive(pid));
    }
}
