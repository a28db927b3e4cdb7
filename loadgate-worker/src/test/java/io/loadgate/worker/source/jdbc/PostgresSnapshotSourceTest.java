package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plans, extracts and stages real PostgreSQL tables at an exported snapshot, and compares what the Parquet files
 * hold with what the source held at that snapshot.
 */
class PostgresSnapshotSourceTest {
    private static final Configuration HADOOP = Staging.HADOOP;
    private static final String BUSINESS_KEY = "XX";
    private static final ValidationSpec VALIDATION = new ValidationSpec(
            List.of("amount", "qty", "order_no"),
            List.of("amount", "name", "day", "created_at", "updated_at", "id"),
            List.of("amount", "name", "day", "created_at", "updated_at", "id"),
            List.of("id", "amount", "name"),
            List.of("order_no"));

    private static TestDatabase db;

    @TempDir
    Path staging;

    @BeforeAll
    static void createSource() throws SQLException {
        db = TestDatabases.create();
        execute("""
                CREATE TABLE public.orders (
                    row_id integer NOT NULL, id bigint, order_no integer NOT NULL, amount numeric(12,2), qty smallint,
                    score double precision, name text, region varchar(8), active boolean, day date,
                    created_at timestamp, updated_at timestamptz, payload bytea)""");
        // 200,000 rows: every 97th split value null, negative and positive ids with gaps, a few duplicate order
        // numbers, nulls in other columns, non-ASCII text, and a region the job's filter leaves out.
        execute("""
                INSERT INTO public.orders
                SELECT g,
                       CASE WHEN g % 97 = 0 THEN NULL ELSE g * 7 - 500000 END,
                       CASE WHEN g % 50000 = 0 THEN 1 ELSE g END,
                       CASE WHEN g % 13 = 0 THEN NULL ELSE round((g * 3.17) % 100000, 2) END,
                       (g % 32000)::smallint,
                       g / 7.0,
                       CASE WHEN g % 11 = 0 THEN NULL ELSE 'name-' || g || CASE WHEN g % 5 = 0 THEN ' é😀' ELSE '' END END,
                       (ARRAY['EU', 'US', 'APAC', 'XX'])[g % 4 + 1],
                       g % 2 = 0,
                       DATE '2020-01-01' + (g % 2000),
                       TIMESTAMP '2020-01-01 00:00:00' + g * INTERVAL '1 minute 0.123456 second',
                       TIMESTAMPTZ '2020-01-01 00:00:00+02' + g * INTERVAL '37 second',
                       decode(lpad(to_hex(g), 8, '0'), 'hex')
                FROM generate_series(1, 200000) g""");
        execute("CREATE TABLE public.events (row_id integer NOT NULL, id integer, label text, price numeric(10,2))");
        execute("""
                INSERT INTO public.events
                SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g END, 'label-' || g, g % 1000 FROM generate_series(1, 20000) g""");
        execute("ANALYZE");
    }

    @Test
    void stagesEverySourceRowExactlyOnceWithEqualMetrics() throws Exception {
        SourceSpec spec = orders(4);
        Source source = new PostgresSnapshotSource(spec, VALIDATION, Map.of());
        List<Record> expected = sourceRows("SELECT * FROM public.orders WHERE region <> 'XX' ORDER BY row_id");

        StagedRun run;
        try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
            SourcePlan plan = holder.plan();
            assertThat(plan.split().rowCount()).isEqualTo(150_000);
            assertThat(plan.split().nullCount()).isEqualTo(count("SELECT count(*) FROM public.orders WHERE region <> 'XX' AND id IS NULL"));
            assertThat(plan.split().min().longValueExact()).isEqualTo(count("SELECT min(id) FROM public.orders WHERE region <> 'XX'"));
            assertThat(plan.split().max().longValueExact()).isEqualTo(count("SELECT max(id) FROM public.orders WHERE region <> 'XX'"));
            assertThat(plan.partitions()).extracting(Partition::partitionId).containsExactly("0000", "0001", "0002", "0003", "NULL");
            assertThat(plan.partitions()).allSatisfy(p -> assertThat(p.expectedRowCount()).as("rows of %s", p.partitionId()).isPositive());
            run = stageAll(source, plan, 30_000);
        }

        assertThat(run.records()).as("staged rows").hasSize(expected.size());
        List<Record> staged = Staging.sortedByRowId(run.records());
        assertThat(staged.stream().map(r -> r.getField("row_id")).distinct().count()).as("distinct staged keys").isEqualTo(expected.size());
        assertThat(staged.stream().map(r -> r.getField("row_id")).toList())
                .isEqualTo(expected.stream().map(r -> r.getField("row_id")).toList());
        assertThat(Staging.checksum(staged)).as("checksum of all staged values").isEqualTo(Staging.checksum(expected));

        MetricSet stagedMetrics = new StagedFilesReader(HADOOP).metrics(run.schema(), run.files(), VALIDATION);
        assertThat(stagedMetrics.differences(run.plan().sourceMetrics().orElseThrow())).as("staged vs source metrics").isEmpty();
        assertThat(stagedMetrics.values()).containsEntry("COUNT", "150000")
                .containsEntry("SUM:amount", text("SELECT trim(trailing '.' from trim(trailing '0' from sum(amount)::text)) FROM public.orders WHERE region <> 'XX'"))
                .containsEntry("NULL_COUNT:id", Long.toString(run.plan().split().nullCount()))
                .containsEntry("DUPLICATE_KEYS", text("SELECT (count(*) - count(DISTINCT order_no))::text FROM public.orders WHERE region <> 'XX'"))
                .containsEntry("MIN:day", text("SELECT min(day)::text FROM public.orders WHERE region <> 'XX'"));
    }

    @Test
    void changesCommittedDuringExtractionDoNotLeakIn() throws Exception {
        SourceSpec spec = events(3);
        Source source = new PostgresSnapshotSource(spec, new ValidationSpec(List.of("price"), null, null, List.of("id"), List.of("row_id")), Map.of());
        List<Record> before = sourceRows("SELECT * FROM public.events ORDER BY row_id");

        StagedRun run;
        try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
            SourcePlan plan = holder.plan();
            StagingSpec stagingSpec = new StagingSpec(staging.toUri(), 5_000, Compression.ZSTD);
            List<StagedChunk> chunks = new ArrayList<>(stage(source, plan, plan.partitions().get(0), stagingSpec));
            // Another session changes rows of every partition, the NULL one included, and commits.
            execute("""
                    BEGIN;
                    INSERT INTO public.events SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE g - 20000 END, 'new', 1 FROM generate_series(20001, 21000) g;
                    UPDATE public.events SET label = 'changed', price = 0 WHERE row_id % 40 = 1;
                    DELETE FROM public.events WHERE row_id % 40 = 2 OR row_id % 40 = 10;
                    COMMIT""");
            assertThat(count("SELECT count(*) FROM public.events")).as("the changes are visible outside the snapshot").isEqualTo(21_000 - 2 * 525);
            for (Partition partition : plan.partitions().subList(1, plan.partitions().size())) {
                chunks.addAll(stage(source, plan, partition, stagingSpec));
            }
            run = new StagedRun(plan, SourceSchemas.toIceberg(plan.columns()), chunks.stream().map(StagedChunk::path).toList(), List.of());
        }

        List<Record> staged = Staging.sortedByRowId(Staging.read(run.schema(), run.files()));
        assertThat(staged).as("rows at the snapshot").hasSize(before.size());
        assertThat(Staging.checksum(staged)).as("checksum of the rows at the snapshot").isEqualTo(Staging.checksum(before));
        assertThat(new StagedFilesReader(HADOOP).metrics(run.schema(), run.files(), new ValidationSpec(List.of("price"), null, null, List.of("id"), List.of("row_id")))
                .differences(run.plan().sourceMetrics().orElseThrow())).isEmpty();
    }

    @Test
    void aPartitionOfAThirdOfTheTableOrMoreIsReadByATableScanASmallerOneThroughTheIndex() throws Exception {
        execute("CREATE TABLE public.scans (id bigint PRIMARY KEY, note text)");
        execute("INSERT INTO public.scans SELECT g, 'note ' || g FROM generate_series(1, 60000) g");
        execute("ANALYZE public.scans");

        assertThat(scanOfOnePartition(2)).as("a half of the table").isEqualTo("table");
        assertThat(scanOfOnePartition(3)).as("a third").isEqualTo("table");
        assertThat(scanOfOnePartition(4)).as("a quarter").isEqualTo("index");
        assertThat(scanOfOnePartition(20)).as("a twentieth").isEqualTo("index");
        assertThat(PostgresSnapshotSource.scansTheTable(1_000, 3_000)).isTrue();
        assertThat(PostgresSnapshotSource.scansTheTable(999, 3_000)).isFalse();
        assertThat(PostgresSnapshotSource.scansTheTable(1_000, -1)).as("a table never analyzed").isFalse();
    }

    /** How the server read the first range partition of public.scans split {@code partitions} ways: "table" or "index". */
    private static String scanOfOnePartition(int partitions) throws Exception {
        SourceSpec spec = new SourceSpec(db.jdbcUrl(), db.user(), null, "public.scans", null, null, "id", partitions, null, 1_000);
        Source source = new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of());
        // The planner's own scans count when its transaction ends, after this.
        try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY)) {
            Partition partition = holder.plan().partitions().stream().filter(p -> !p.isNullPartition()).findFirst().orElseThrow();
            long[] before = settledScans(null);
            long rows = 0;
            try (PartitionRows read = source.readPartition(holder.plan().snapshotRef(), partition, BUSINESS_KEY)) {
                while (read.next()) {
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(partition.expectedRowCount());
            long[] after = settledScans(before);
            // Rows, not scans: planning a range probes the index for the column's actual ends.
            long tableRows = after[0] - before[0];
            long indexRows = after[1] - before[1];
            return tableRows == 60_000 && indexRows < 10 ? "table" : tableRows == 0 && indexRows >= rows ? "index"
                    : tableRows + " rows by table scans and " + indexRows + " through an index";
        }
    }

    /**
     * The rows of public.scans read by sequential scans and fetched through an index, once they stop changing (and differ from {@code before}, when
     * given): a backend reports its counts when its connection closes, a moment after the client's close returns.
     */
    private static long[] settledScans(long[] before) throws Exception {
        long[] last = null;
        for (int i = 0; i < 150; i++) {
            long[] now;
            try (Connection c = db.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT seq_tup_read, idx_tup_fetch FROM pg_stat_user_tables WHERE relid = CAST('public.scans' AS regclass)")) {
                rs.next();
                now = new long[] {rs.getLong(1), rs.getLong(2)};
            }
            if (Arrays.equals(now, last) && !Arrays.equals(now, before)) {
                return now;
            }
            last = now;
            Thread.sleep(200);
        }
        throw new AssertionError("the read counts of public.scans did not settle: " + Arrays.toString(last));
    }

    @Test
    void aClosedHolderExpiresTheSnapshot() throws Exception {
        Source source = new PostgresSnapshotSource(events(2), ValidationSpec.COUNT_ONLY, Map.of());
        SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY);
        SourcePlan plan = holder.plan();
        try (PartitionRows rows = source.readPartition(plan.snapshotRef(), plan.partitions().get(0), BUSINESS_KEY)) {
            assertThat(rows.next()).isTrue();
        }
        assertThat(holder.isAlive()).isTrue();

        holder.close();

        assertThat(holder.isAlive()).isFalse();
        assertThatThrownBy(() -> source.readPartition(plan.snapshotRef(), plan.partitions().get(1), BUSINESS_KEY))
                .isInstanceOf(SnapshotExpiredException.class)
                .hasMessageStartingWith("snapshot " + plan.snapshotRef() + " is gone: ");
    }

    @Test
    void badSourcesFailWithOneClearLine() {
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, "public.nope", null, null, "id", 4, null, null)),
                SourceException.class, "source.table public.nope does not exist in " + db.jdbcUrl());
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, null, "nope", 4, null, null)),
                SourceException.class, "source.split_column nope is not a column of public.events; it has [row_id, id, label, price]");
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, null, "label", 4, null, null)),
                SourceException.class, "source.split_column label is string; a split column must be an integer type");
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, null, "price", 4, null, null)),
                SourceException.class, "source.split_column price is decimal(10,2); a split column must be an integer type");
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, List.of("row_id", "nope"), "id", 4, null, null)),
                SourceException.class, "source.columns names nope, which is not a column of public.events; it has [row_id, id, label, price]");
        assertOneLine(() -> new PostgresSnapshotSource(events(2), new ValidationSpec(List.of("label"), null, null, null, null), Map.of())
                        .openSnapshot(BUSINESS_KEY),
                SourceException.class, "validation.sum names label, which is string; SUM needs an integer or decimal column");
        assertOneLine(() -> open(new SourceSpec("jdbc:postgresql://127.0.0.1:1/nothing", "postgres", null, "public.events", null, null, "id", 4, null, null)),
                SourceException.class, "cannot connect to jdbc:postgresql://127.0.0.1:1/nothing: Connection to 127.0.0.1:1 refused");
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), "LOADGATE_TEST_UNSET_PASSWORD", "public.events", null, null, "id", 4, null, null)),
                JobSpecException.class, "source.password_env names LOADGATE_TEST_UNSET_PASSWORD, which is not set in the environment");
        assertOneLine(() -> open(new SourceSpec(db.jdbcUrl(), db.user(), null, null, "SELECT row_id, id, FROM public.events", null, "id", 4, null, null)),
                SourceException.class, "source query failed on source.query: ERROR: syntax error");
    }

    @Test
    void theBusinessKeyTakesTheTypeItsFilterGivesIt() throws Exception {
        // Untyped, the key is a date wherever the filter compares it with one, with or without a CAST (bound as
        // varchar, "day = :business_key" has no operator and the CAST is evaluated row by row); and a text still.
        String key = "2020-03-15";
        long expected = count("SELECT count(*) FROM public.orders WHERE day = DATE '2020-03-15'");
        assertThat(expected).isPositive();
        for (String filter : List.of("day = :business_key", "day = CAST(:business_key AS date)",
                "CAST(day AS text) = :business_key")) {
            SourceSpec spec = new SourceSpec(db.jdbcUrl(), db.user(), null, "public.orders", null, null, "id", 2,
                    filter, 1_000);
            Source source = new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of());
            try (SnapshotHolder holder = source.openSnapshot(key)) {
                assertThat(holder.plan().split().rowCount()).as(filter).isEqualTo(expected);
                long rows = 0;
                for (Partition partition : holder.plan().partitions()) {
                    try (PartitionRows read = source.readPartition(holder.plan().snapshotRef(), partition, key)) {
                        while (read.next()) {
                            rows++;
                        }
                    }
                }
                assertThat(rows).as(filter).isEqualTo(expected);
            }
        }
    }

    @Test
    void aQuerySourceAndAnAllNullSplitColumnGiveOnlyTheNullPartition() {
        SourceSpec spec = new SourceSpec(db.jdbcUrl(), db.user(), null, null,
                "SELECT row_id, id, label FROM public.events WHERE id IS NULL", null, "id", 4, "label <> :business_key", null);
        try (SnapshotHolder holder = new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of()).openSnapshot(BUSINESS_KEY)) {
            assertThat(holder.plan().partitions()).singleElement().satisfies(p -> {
                assertThat(p.isNullPartition()).isTrue();
                assertThat(p.expectedRowCount()).isEqualTo(holder.plan().split().rowCount()).isPositive();
            });
            assertThat(holder.plan().split().min()).isNull();
        }
    }

    @Test
    void aSplitRangeReadBeforeTheScanGivesThePlanOfTwoScans() {
        SourceSpec allNull = new SourceSpec(db.jdbcUrl(), db.user(), null, null,
                "SELECT row_id, id, label FROM public.events WHERE id IS NULL", null, "id", 4, "label <> :business_key", null);
        SourceSpec empty = new SourceSpec(db.jdbcUrl(), db.user(), null, null,
                "SELECT row_id, id, label FROM public.events WHERE row_id < 0", null, "id", 4, "label <> :business_key", null);
        List<Map.Entry<SourceSpec, ValidationSpec>> jobs = List.of(Map.entry(orders(4), VALIDATION),
                Map.entry(orders(1), VALIDATION), Map.entry(events(3), ValidationSpec.COUNT_ONLY),
                Map.entry(allNull, ValidationSpec.COUNT_ONLY), Map.entry(empty, ValidationSpec.COUNT_ONLY));
        for (var job : jobs) {
            for (SourceMetricsTiming timing : List.of(SourceMetricsTiming.WHILE_PLANNING, SourceMetricsTiming.DURING_EXTRACTION)) {
                SourcePlan oneScan;
                SourcePlan twoScans;
                try (SnapshotHolder holder = new PostgresSnapshotSource(job.getKey(), job.getValue(), Map.of(), 60_000)
                        .openSnapshot(BUSINESS_KEY, timing)) {
                    oneScan = holder.plan();
                }
                try (SnapshotHolder holder = new PostgresSnapshotSource(job.getKey(), job.getValue(), Map.of(), 0)
                        .openSnapshot(BUSINESS_KEY, timing)) {
                    twoScans = holder.plan();
                }
                String what = job.getKey().table() + " " + job.getKey().query() + " " + timing;
                assertThat(oneScan.split()).as(what).isEqualTo(twoScans.split());
                assertThat(oneScan.partitions()).as(what).isEqualTo(twoScans.partitions());
                assertThat(oneScan.sourceMetrics()).as(what).isEqualTo(twoScans.sourceMetrics());
                assertThat(oneScan.columns()).as(what).isEqualTo(twoScans.columns());
            }
        }
    }

    @Test
    void theSplitRangeIsReadFirstOnlyWhenTheServerAnswersAtOnce() throws Exception {
        execute("CREATE TABLE public.ranged AS SELECT g AS id, g % 7 AS v FROM generate_series(-5, 300000) g");
        execute("ALTER TABLE public.ranged ADD PRIMARY KEY (id)");
        execute("ANALYZE public.ranged");
        SourceSpec ranged = new SourceSpec(db.jdbcUrl(), db.user(), null, "public.ranged", null, null, "id", 2, null, 1_000);
        try (Connection connection = db.connect()) {
            connection.setAutoCommit(false);
            assertThat(new PostgresSnapshotSource(ranged, ValidationSpec.COUNT_ONLY, Map.of(), 10_000)
                    .quickSplitRange(connection, BUSINESS_KEY)).as("the primary key's two ends")
                    .contains(new SnapshotQueries.SplitRange(java.math.BigInteger.valueOf(-5),
                            java.math.BigInteger.valueOf(300_000)));
            // 200,000 rows without an index on id: no server scans them in a millisecond.
            assertThat(new PostgresSnapshotSource(orders(2), VALIDATION, Map.of(), 1)
                    .quickSplitRange(connection, BUSINESS_KEY)).as("a scan is given up").isEmpty();
            assertThat(new PostgresSnapshotSource(orders(2), VALIDATION, Map.of(), 0)
                    .quickSplitRange(connection, BUSINESS_KEY)).as("never tried").isEmpty();
            // The plan's transaction goes on, without the timeout: a scan of every row still answers.
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT current_setting('statement_timeout'),"
                         + " (SELECT count(*) FROM public.ranged)")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("0");
                assertThat(rs.getLong(2)).isEqualTo(300_006);
            }
        }
    }

    @Test
    void autoMeasuresTheMetricsWhilePlanningFromAServerOnThisHostAndLaterWhenAsked() throws Exception {
        Source source = new PostgresSnapshotSource(orders(2), VALIDATION, Map.of());
        Map<String, String> planned;
        try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY, SourceMetricsTiming.AUTO)) {
            assertThat(holder.plan().sourceMetrics()).as("the test server listens on this host").isPresent();
            planned = holder.plan().sourceMetrics().orElseThrow().values();
        }
        try (SnapshotHolder holder = source.openSnapshot(BUSINESS_KEY, SourceMetricsTiming.DURING_EXTRACTION)) {
            assertThat(holder.plan().sourceMetrics()).isEmpty();
            assertThat(holder.sourceMetrics().values()).as("the same SQL at an equal snapshot").isEqualTo(planned);
        }
    }

    @Test
    void aKeyTheServerKeepsUniqueNeedsNoDuplicateQuery() throws Exception {
        execute("""
                CREATE TABLE public.u_pk (id bigint PRIMARY KEY, sub int NOT NULL, code text, day date);
                CREATE TABLE public.u_nullable (id bigint, code text);
                CREATE UNIQUE INDEX ON public.u_nullable (id);
                CREATE TABLE public.u_partial (id bigint NOT NULL);
                CREATE UNIQUE INDEX ON public.u_partial (id) WHERE id > 0;
                CREATE TABLE public.u_expr (code text NOT NULL);
                CREATE UNIQUE INDEX ON public.u_expr (lower(code));
                CREATE TABLE public.u_collated (code text NOT NULL);
                CREATE UNIQUE INDEX ON public.u_collated (code COLLATE "C");
                CREATE TABLE public.u_parent (id bigint PRIMARY KEY);
                CREATE TABLE public.u_child () INHERITS (public.u_parent);
                CREATE TABLE public.u_parts (id bigint NOT NULL, day date NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (day);
                CREATE TABLE public.u_parts_2026 PARTITION OF public.u_parts FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
                INSERT INTO public.u_pk SELECT g, g % 3, 'c' || g, DATE '2026-11-30' FROM generate_series(1, 500) g""");
        try (Connection c = db.connect()) {
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_pk", List.of("id"))).isTrue();
            assertThat(PostgresSnapshotSource.keysUnique(c, "u_pk", List.of("ID", "sub"))).as("a superset of the index").isTrue();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_pk", List.of("sub"))).isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_nullable", List.of("id"))).as("NULLs are distinct to it").isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_partial", List.of("id"))).isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_expr", List.of("code"))).isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_collated", List.of("code"))).as("another collation").isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_parent", List.of("id"))).as("a child's rows are outside it").isFalse();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.u_parts", List.of("id", "day"))).isTrue();
            assertThat(PostgresSnapshotSource.keysUnique(c, "public.no_such_table", List.of("id"))).isFalse();
        }
        SourceSpec spec = new SourceSpec(db.jdbcUrl(), db.user(), null, "public.u_pk", null, null, "id", 2,
                "day = CAST(:business_key AS date)", 100);
        ValidationSpec keyed = new ValidationSpec(null, null, null, null, List.of("id"));
        try (SnapshotHolder holder = new PostgresSnapshotSource(spec, keyed, Map.of()).openSnapshot("2026-11-30")) {
            assertThat(holder.plan().sourceMetrics().orElseThrow().values()).containsEntry("DUPLICATE_KEYS", "0")
                    .containsEntry("COUNT", "500");
        }
    }

    @Test
    void theServersAddressSaysWhetherItRunsOnThisHost() throws Exception {
        try (Connection c = db.connect()) {
            assertThat(PostgresSnapshotSource.onThisHost(c)).isTrue();
        }
        assertThat(SourceConnections.isLocalAddress("127.0.0.1")).isTrue();
        assertThat(SourceConnections.isLocalAddress("::1")).isTrue();
        // TEST-NET-2 (RFC 5737), which no host is given (this machine has an address of TEST-NET-1).
        assertThat(SourceConnections.isLocalAddress("198.51.100.254")).isFalse();
    }

    private record StagedRun(SourcePlan plan, Schema schema, List<URI> files, List<Record> records) {
    }

    /** Stages every partition at once, one thread each, as concurrent workers would. */
    private StagedRun stageAll(Source source, SourcePlan plan, int rowsPerChunk) throws Exception {
        StagingSpec stagingSpec = new StagingSpec(staging.toUri(), rowsPerChunk, Compression.ZSTD);
        ExecutorService workers = Executors.newFixedThreadPool(plan.partitions().size());
        try {
            List<Future<List<StagedChunk>>> results = new ArrayList<>();
            for (Partition partition : plan.partitions()) {
                results.add(workers.submit(() -> stage(source, plan, partition, stagingSpec)));
            }
            List<URI> files = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                Partition partition = plan.partitions().get(i);
                List<StagedChunk> chunks = results.get(i).get();
                assertThat(chunks.stream().mapToLong(StagedChunk::recordCount).sum()).as("rows staged for %s", partition.partitionId())
                        .isEqualTo(partition.expectedRowCount());
                chunks.forEach(c -> files.add(c.path()));
            }
            Schema schema = SourceSchemas.toIceberg(plan.columns());
            return new StagedRun(plan, schema, files, Staging.read(schema, files));
        } finally {
            workers.shutdownNow();
        }
    }

    private List<StagedChunk> stage(Source source, SourcePlan plan, Partition partition, StagingSpec stagingSpec) {
        return Staging.stage(source, plan, partition, stagingSpec, BUSINESS_KEY);
    }

    private static List<Record> sourceRows(String sql) throws SQLException {
        try (Connection c = db.connect()) {
            return Staging.sourceRows(c, sql);
        }
    }

    private static SourceSpec orders(int partitions) {
        return new SourceSpec(db.jdbcUrl(), db.user(), null, "public.orders", null, null, "id", partitions,
                "region <> :business_key", 5_000);
    }

    private static SourceSpec events(int partitions) {
        return new SourceSpec(db.jdbcUrl(), db.user(), null, "public.events", null, null, "id", partitions, null, 1_000);
    }

    private static void open(SourceSpec spec) {
        new PostgresSnapshotSource(spec, ValidationSpec.COUNT_ONLY, Map.of()).openSnapshot(BUSINESS_KEY).close();
    }

    private static void assertOneLine(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Class<? extends Exception> type, String start) {
        assertThatThrownBy(call).isInstanceOf(type).hasMessageStartingWith(start)
                .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
