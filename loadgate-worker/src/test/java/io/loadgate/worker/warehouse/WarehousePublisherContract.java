package io.loadgate.worker.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.GenericParquet;
import io.loadgate.worker.validation.MetricCalculator;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warehouse publisher against a real database, the same guarantees for every dialect: every staged type, replace
 * by business key, racing publishers, unknown outcomes. A subclass per dialect provides the database.
 */
abstract class WarehousePublisherContract {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(4, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(5, "score", Types.FloatType.get()),
            Types.NestedField.optional(6, "note", Types.StringType.get()),
            Types.NestedField.optional(7, "paid", Types.BooleanType.get()),
            Types.NestedField.optional(8, "created", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(9, "settled", Types.TimestampType.withZone()),
            Types.NestedField.optional(10, "blob", Types.BinaryType.get()),
            Types.NestedField.optional(11, "day", Types.DateType.get()));
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);
    private static final String[] NOTES = {"plain", "", "a,comma", "a \"quote\"", "two\nlines", "tab\there", "ünïcødé ✓",
        "\\backslash", "NULL"};

    @TempDir
    Path stage;
    private WarehouseConnector connector;
    private TargetTable table;
    /** {@code schema.orders}, for the tests' own SQL. */
    String orders;

    /** A connector to an empty schema of its own; the subclass drops what the test created. */
    abstract WarehouseConnector warehouse(String schema) throws SQLException;

    /** The schema of this test. */
    abstract String schema();

    /** False where the database cannot store NaN, so the staged rows hold none. */
    abstract boolean storesNaN();

    /** The SQLSTATE the dialect's driver reports when the connection broke. */
    abstract String connectionLostState();

    /** A query counting the sessions that wait for a business key's lock. */
    abstract String sessionsWaitingForALock();

    @BeforeEach
    void start() throws SQLException {
        connector = warehouse(schema());
        table = new TargetTable(TableIdentifier.of(schema(), "orders"), SCHEMA, "day");
        orders = schema() + ".orders";
    }

    WarehouseConnector connector() {
        return connector;
    }

    Connection connect() throws SQLException {
        return connector.connect();
    }

    List<Record> rows(LocalDate day, long firstId, int count) {
        List<Record> rows = new ArrayList<>();
        for (long id = firstId; id < firstId + count; id++) {
            GenericRecord r = GenericRecord.create(SCHEMA);
            boolean nulls = id % 10 == 0;
            r.setField("id", id);
            r.setField("qty", nulls ? null : (int) (id % 7) - 3);
            r.setField("amount", nulls ? null : BigDecimal.valueOf(id * 101 % 100_000 - 50_000, 2));
            r.setField("ratio", nulls ? null : id % 11 == 0 && storesNaN() ? Double.NaN : id / 3.0);
            r.setField("score", nulls ? null : (float) (id * 1.5e10));
            r.setField("note", nulls ? null : NOTES[(int) (id % NOTES.length)]);
            r.setField("paid", nulls ? null : id % 2 == 0);
            r.setField("created", nulls ? null : LocalDateTime.of(2026, 11, 28, 1, 2, 3).plusSeconds(id * 7919).plusNanos(id * 1000));
            r.setField("settled", nulls ? null : OffsetDateTime.of(2026, 11, 28, 23, 59, 59, 123_456_000, ZoneOffset.UTC).plusMinutes(id));
            r.setField("blob", nulls ? null : ByteBuffer.wrap(new byte[] {(byte) id, 0, (byte) 0xff, ',', '"'}));
            r.setField("day", day);
            rows.add(r);
        }
        return rows;
    }

    StagedFile write(List<Record> records) {
        File file = GenericParquet.write(stage.resolve("chunk-" + UUID.randomUUID() + ".parquet").toFile(), SCHEMA,
                records);
        return new StagedFile(file.getAbsolutePath(), records.size(), file.length());
    }

    PublishRequest request(LocalDate day, UUID token, List<StagedFile> files) {
        return request(day, token, Fences.next(), files);
    }

    PublishRequest request(LocalDate day, UUID token, PublishFence fence, List<StagedFile> files) {
        return new PublishRequest(UUID.randomUUID().toString(), "ORDERS", day.toString(), token, fence, table, files);
    }

    PublishOutcome publish(WarehouseConnector through, LocalDate day, List<StagedFile> files) {
        return new WarehousePublisher(through, new Configuration()).publish(request(day, UUID.randomUUID(), files));
    }

    /** The table's rows of a day, each as one canonical line, sorted; values as the staged files hold them. */
    List<String> tableRows(LocalDate day) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + orders + " WHERE day = DATE '" + day + "'")) {
            var columns = io.loadgate.worker.source.jdbc.JdbcValues.describe(rs.getMetaData());
            while (rs.next()) {
                GenericRecord r = GenericRecord.create(SCHEMA);
                for (int i = 0; i < columns.size(); i++) {
                    r.set(i, io.loadgate.worker.source.jdbc.JdbcValues.read(rs, i + 1, columns.get(i)));
                }
                lines.add(line(r));
            }
        }
        Collections.sort(lines);
        return lines;
    }

    static List<String> lines(List<Record> records) {
        List<String> lines = new ArrayList<>(records.stream().map(WarehousePublisherContract::line).toList());
        Collections.sort(lines);
        return lines;
    }

    private static String line(Record r) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < SCHEMA.columns().size(); i++) {
            Object v = r.get(i);
            if (v instanceof ByteBuffer b) {
                v = java.util.HexFormat.of().formatHex(b.duplicate().array());
            } else if (v instanceof OffsetDateTime t) {
                v = t.toInstant();
            } else if (v instanceof LocalDateTime t && SCHEMA.columns().get(i).type().equals(Types.TimestampType.withZone())) {
                // Where the column holds the instant as a UTC datetime (MariaDB).
                v = t.toInstant(ZoneOffset.UTC);
            }
            line.append(v).append('|');
        }
        return line.toString();
    }

    long count(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void everyStagedTypeArrivesAsItWasAndARunReplacesOnlyItsBusinessKey() throws Exception {
        List<Record> first = rows(DAY_1, 1, 300);
        List<Record> other = rows(DAY_2, 1_001, 200);

        PublishOutcome published = publish(connector, DAY_1, List.of(write(first.subList(0, 120)), write(first.subList(120, 300))));
        assertThat(published.status()).as(published.message()).isEqualTo(Status.PUBLISHED);
        assertThat(Long.parseLong(published.targetRef())).as("the transaction id, or marker id").isPositive();
        assertThat(publish(connector, DAY_2, List.of(write(other))).status()).isEqualTo(Status.PUBLISHED);
        assertThat(tableRows(DAY_1)).isEqualTo(lines(first));

        List<Record> again = rows(DAY_1, 5_001, 50);
        assertThat(publish(connector, DAY_1, List.of(write(again))).status()).isEqualTo(Status.PUBLISHED);

        assertThat(tableRows(DAY_1)).as("replaced, one copy").isEqualTo(lines(again));
        assertThat(tableRows(DAY_2)).as("untouched").isEqualTo(lines(other));
        assertThat(count("SELECT count(*) FROM " + schema() + ".loadgate_publish")).isEqualTo(3);
        ValidationSpec spec = new ValidationSpec(List.of("amount", "qty"), List.of("created", "note"),
                List.of("settled", "amount"), List.of("note", "blob"), List.of("id"));
        MetricCalculator expected = new MetricCalculator(spec, SCHEMA);
        again.forEach(expected::accept);
        WarehouseTable definition = WarehouseTable.of(orders, SCHEMA, "day");
        assertThat(new WarehouseReader(connector).measure(definition, DAY_1.toString(), spec))
                .as("read back and measured as staged files are").isEqualTo(expected.result());
    }

    /**
     * Issue 8's zombie, in a warehouse: run A's publisher claimed (generation n) and was paused; run B of the key
     * claimed (n + 1) and published. A resuming must not replace B's rows.
     */
    @Test
    void aPausedPublisherResumingAfterANewerPublishOfItsKeyIsRefusedAndTheNewerRowsStay() throws Exception {
        List<Record> older = rows(DAY_1, 1, 120);
        List<Record> newer = rows(DAY_1, 1, 110);
        PublishRequest paused = request(DAY_1, UUID.randomUUID(), List.of(write(older)));
        PublishRequest later = request(DAY_1, UUID.randomUUID(), List.of(write(newer)));
        WarehousePublisher publisher = new WarehousePublisher(connector, new Configuration());
        assertThat(publisher.publish(later).status()).isEqualTo(Status.PUBLISHED);

        PublishOutcome resumed = publisher.publish(paused);

        assertThat(resumed.status()).as(resumed.message()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(resumed.errorCode()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(resumed.message()).contains("holds publish generation " + later.fence().generation());
        assertThat(tableRows(DAY_1)).as("the newer run's rows").isEqualTo(lines(newer));
        assertThat(publisher.probe(orders, paused.runId(), paused.publishToken()).status())
                .as("the refused publish left no marker").isEqualTo(ProbeResult.Status.NOT_FOUND);
    }

    /** Past its deadline a publisher does not COMMIT: the ledger may already have settled its run on a probe. */
    @Test
    void aPublishPastItsDeadlineIsRolledBack() throws Exception {
        List<Record> before = rows(DAY_1, 1, 40);
        assertThat(publish(connector, DAY_1, List.of(write(before))).status()).isEqualTo(Status.PUBLISHED);
        PublishRequest late = request(DAY_1, UUID.randomUUID(), new PublishFence(Fences.next().generation(),
                java.time.Instant.now().minusSeconds(1)), List.of(write(rows(DAY_1, 500, 30))));

        PublishOutcome outcome = new WarehousePublisher(connector, new Configuration()).publish(late);

        assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(outcome.message()).contains("the publish deadline");
        assertThat(tableRows(DAY_1)).as("the rows before").isEqualTo(lines(before));
    }

    /**
     * Issue 8's zombie, frozen inside its transaction: run A's publisher holds the key's lock (and has deleted the
     * key's rows) and does not go on; the ledger settled A after its deadline and run B claimed the key's next
     * generation. B's publish ends A's session instead of queueing behind it until its own deadline.
     */
    @Test
    void aPublisherFrozenHoldingTheKeysLockDoesNotKeepTheNextClaimWaiting() throws Exception {
        assertThat(publish(connector, DAY_1, List.of(write(rows(DAY_1, 1, 40))))).extracting(PublishOutcome::status)
                .isEqualTo(Status.PUBLISHED);
        PublishFence earlier = Fences.next();
        List<Record> newer = rows(DAY_1, 1_000, 30);
        PublishRequest next = request(DAY_1, UUID.randomUUID(), List.of(write(newer)));
        try (Connection frozen = holdingTheKey(earlier)) {
            try (Statement delete = frozen.createStatement()) {
                delete.executeUpdate("DELETE FROM " + orders + " WHERE day = DATE '" + DAY_1 + "'");
            }

            PublishOutcome outcome = publishAside(next).get(60, TimeUnit.SECONDS);

            assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.PUBLISHED);
            assertThat(tableRows(DAY_1)).isEqualTo(lines(newer));
            assertThatThrownBy(frozen::commit).as("the frozen session was ended, its transaction rolled back")
                    .isInstanceOf(SQLException.class);
        }
    }

    /** A publish delivered twice runs one claim in two sessions: the second waits for the first, ending nothing. */
    @Test
    void aSecondPublishOfTheSameClaimWaitsForTheFirst() throws Exception {
        assertThat(publish(connector, DAY_1, List.of(write(rows(DAY_1, 1, 40))))).extracting(PublishOutcome::status)
                .isEqualTo(Status.PUBLISHED);
        PublishFence fence = Fences.next();
        List<Record> second = rows(DAY_1, 1_000, 30);
        Future<PublishOutcome> waiting;
        try (Connection first = holdingTheKey(fence)) {
            waiting = publishAside(request(DAY_1, UUID.randomUUID(), fence, List.of(write(second))));
            while (count(sessionsWaitingForALock()) == 0) {
                assertThat(waiting).as("the second publish went on while the first held the key").isNotDone();
                Thread.sleep(20);
            }

            first.commit();
        }
        PublishOutcome outcome = waiting.get(60, TimeUnit.SECONDS);
        assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.PUBLISHED);
        assertThat(tableRows(DAY_1)).isEqualTo(lines(second));
    }

    /** A publisher past its deadline may itself be the zombie: it ends nobody. */
    @Test
    void aPublishPastItsDeadlineEndsNoHolderOfTheKey() throws Exception {
        try (Connection holder = holdingTheKey(Fences.next())) {
            PublishRequest late = request(DAY_1, UUID.randomUUID(), new PublishFence(Fences.next().generation(),
                    java.time.Instant.now().minusSeconds(1)), List.of(write(rows(DAY_1, 500, 30))));

            PublishOutcome outcome = publishAside(late).get(60, TimeUnit.SECONDS);

            assertThat(outcome.errorCode()).as(outcome.message()).isEqualTo(ErrorCode.PUBLISH_FENCED);
            assertThat(holder.isValid(5)).as("the holder's session lives").isTrue();
            holder.commit();
        }
    }

    /** A session of its own, in a transaction holding DAY_1's lock as a publish under {@code fence} takes it. */
    private Connection holdingTheKey(PublishFence fence) throws SQLException {
        Connection connection = connect();
        connection.setAutoCommit(false);
        connector.dialect().lockBusinessKeyToPublish(connection, orders, DAY_1.toString(), fence);
        return connection;
    }

    private Future<PublishOutcome> publishAside(PublishRequest request) {
        CompletableFuture<PublishOutcome> outcome = new CompletableFuture<>();
        Thread publisher = new Thread(() -> {
            try {
                outcome.complete(new WarehousePublisher(connector, new Configuration()).publish(request));
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        }, "aside-publisher");
        publisher.setDaemon(true);
        publisher.start();
        return outcome;
    }

    @Test
    void racingPublishesOfOneKeyLeaveExactlyOneOfThemInTheTable() throws Exception {
        int racers = 8;
        assertThat(publish(connector, DAY_1, List.of(write(rows(DAY_1, 1, 10))))).extracting(PublishOutcome::status)
                .isEqualTo(Status.PUBLISHED);
        for (int round = 0; round < 5; round++) {
            List<StagedFile> files = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                files.add(write(rows(DAY_1, 100_000L * (round * racers + i + 1), 200)));
            }
            var pool = java.util.concurrent.Executors.newFixedThreadPool(racers);
            var start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<PublishOutcome>> outcomes = new ArrayList<>();
            // One generation for the round: the ledger would never let these claim at once, and the race is about
            // the key's lock, not the order the fence imposes on claims.
            PublishFence fence = Fences.next();
            for (StagedFile file : files) {
                outcomes.add(pool.submit(() -> {
                    start.await();
                    return new WarehousePublisher(connector, new Configuration())
                            .publish(request(DAY_1, UUID.randomUUID(), fence, List.of(file)));
                }));
            }
            start.countDown();
            for (var outcome : outcomes) {
                assertThat(outcome.get().status()).as(outcome.get().message()).isEqualTo(Status.PUBLISHED);
            }
            pool.shutdown();

            assertThat(count("SELECT count(*) FROM " + orders + " WHERE day = DATE '" + DAY_1 + "'"))
                    .as("round %d: one publish's rows, never two", round).isEqualTo(200);
            assertThat(count("SELECT count(DISTINCT FLOOR(id / 100000)) FROM " + orders + " WHERE day = DATE '" + DAY_1 + "'"))
                    .as("round %d: all from the same file", round).isEqualTo(1);
        }
    }

    @Test
    void aCommitWhoseAnswerIsLostIsUnknownAndTheProbeFindsItsToken() throws Exception {
        assertACommitThatTookEffectButFailedWithIsUnknown(connectionLostState());
    }

    /** A COMMIT that took effect, then threw {@code sqlState}: unknown to the publisher, found by the probe. */
    void assertACommitThatTookEffectButFailedWithIsUnknown(String sqlState) throws Exception {
        WarehouseConnector losesCommitAnswer = new WarehouseConnector(connector.dialect(), () -> {
            Connection real = connector.opener().open();
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        try {
                            Object result = method.invoke(real, args);
                            if (method.getName().equals("commit")) {
                                throw new SQLException("the commit's answer was lost", sqlState);
                            }
                            return result;
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        });
        UUID token = UUID.randomUUID();
        PublishRequest request = request(DAY_1, token, List.of(write(rows(DAY_1, 1, 40))));

        PublishOutcome outcome = new WarehousePublisher(losesCommitAnswer, new Configuration()).publish(request);

        assertThat(outcome.status()).isEqualTo(Status.PUBLISH_UNKNOWN);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.COMMIT_INTERRUPTED);
        WarehousePublisher publisher = new WarehousePublisher(connector, new Configuration());
        ProbeResult probe = publisher.probe(table.identifier().toString(), request.runId(), token);
        assertThat(probe.status()).isEqualTo(ProbeResult.Status.PUBLISHED);
        assertThat(probe.evidence()).contains("40 rows");
        assertThat(tableRows(DAY_1)).hasSize(40);
        assertThat(publisher.probe(table.identifier().toString(), request.runId(), UUID.randomUUID()).status())
                .isEqualTo(ProbeResult.Status.NOT_FOUND);
    }

    @Test
    void aFailureBeforeCommitLeavesTheTableAsItWas() throws Exception {
        List<Record> before = rows(DAY_1, 1, 30);
        assertThat(publish(connector, DAY_1, List.of(write(before))).status()).isEqualTo(Status.PUBLISHED);
        StagedFile good = write(rows(DAY_1, 100, 10));
        StagedFile gone = new StagedFile(stage.resolve("gone.parquet").toString(), 10, 1234);
        StagedFile miscounted = new StagedFile(good.location(), 11, good.byteCount());

        PublishOutcome missing = publish(connector, DAY_1, List.of(good, gone));
        PublishOutcome counted = publish(connector, DAY_1, List.of(miscounted));

        assertThat(missing.status()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(missing.errorCode()).isEqualTo(ErrorCode.NOT_COMMITTED);
        assertThat(counted.status()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(counted.message()).contains("the files hold 10 rows but the ledger recorded 11");
        assertThat(tableRows(DAY_1)).isEqualTo(lines(before));
        assertThat(count("SELECT count(*) FROM " + schema() + ".loadgate_publish")).isEqualTo(1);
    }

    @Test
    void anExistingTableWithOtherColumnsIsNotTouched() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema());
            s.execute("CREATE TABLE " + orders + " (id bigint, day date)");
            s.execute("INSERT INTO " + orders + " VALUES (1, DATE '" + DAY_1 + "')");
        }

        PublishOutcome outcome = publish(connector, DAY_1, List.of(write(rows(DAY_1, 1, 5))));

        assertThat(outcome.status()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.TARGET_MISMATCH);
        assertThat(outcome.message()).contains("has columns [id bigint, day date]");
        assertThat(count("SELECT count(*) FROM " + orders)).isEqualTo(1);
    }

    @Test
    void aRollbackDeletesExactlyTheRowsItCountedOfOneKey() throws Exception {
        assertThat(publish(connector, DAY_1, List.of(write(rows(DAY_1, 1, 30)))).status()).isEqualTo(Status.PUBLISHED);
        List<Record> other = rows(DAY_2, 100, 20);
        assertThat(publish(connector, DAY_2, List.of(write(other))).status()).isEqualTo(Status.PUBLISHED);
        WarehouseRollback rollback = new WarehouseRollback(connector);

        assertThat(rollback.rows(orders, "day", DAY_1.toString())).isEqualTo(30);
        assertThatThrownBy(() -> rollback.delete(orders, "day", DAY_1.toString(), 29))
                .hasMessage("the table held 30 rows of " + DAY_1 + ", not the 29 counted before; nothing deleted");
        assertThat(rollback.delete(orders, "day", DAY_1.toString(), 30)).isPositive();

        assertThat(rollback.rows(orders, "day", DAY_1.toString())).isZero();
        assertThat(tableRows(DAY_2)).isEqualTo(lines(other));
        assertThat(rollback.rows(schema() + ".absent", "day", DAY_1.toString())).isEqualTo(-1);
    }
}
