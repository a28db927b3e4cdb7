package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.testing.StagedRuns;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Load Control API seed's publish against a real HiveServer2 in its own JVM ({@link HiveServer2Fixture}): an
 * external staging table over the directory {@link PublishDirectory} builds from the ledger's file list, then
 * {@code INSERT OVERWRITE} of the key's partition from it. The run directory also holds a zombie attempt's chunks, a
 * {@code _tmp} file and a rejects file, which the partition must not get. Aborted, with the reason printed, only
 * when that JVM cannot start.
 */
@Timeout(900)
class HiveServer2InsertOverwriteTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 1);

    @TempDir
    Path work;

    @Test
    void insertOverwriteFromAStagingTableOverExactlyTheLedgersFilesFillsAndReplacesThePartition() throws Exception {
        HiveServer2Fixture hs2 = null;
        try {
            hs2 = HiveServer2Fixture.start(Files.createDirectories(work.resolve("hs2")));
        } catch (HiveServer2Fixture.Unavailable e) {
            System.out.println("HiveServer2InsertOverwriteTest skipped: " + e.getMessage());
            Assumptions.abort(e.getMessage());
        }
        System.out.println("HiveServer2 serving after " + hs2.startup.toMillis() + " ms");
        Configuration hadoop = new Configuration();
        try (HiveServer2Fixture server = hs2; Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigint, amount decimal(12,2), order_date date)"
                    + " PARTITIONED BY (dt string) STORED AS PARQUET");

            String first = publishDirectory(hadoop, 0, 1_000, true);
            s.execute(stagingTable("stage_run_1", first));
            s.execute(insertOverwrite("stage_run_1"));

            assertThat(partition(s)).as("each staged row once: no zombie, _tmp or rejects row")
                    .containsExactly(1_000L, 1_000L, 0L, 999L);
            // What a probe after a lost answer could read: the statement's query id, and a token set on the
            // partition by a second statement. INSERT OVERWRITE cannot set partition properties, and HiveQL has no
            // ALTER TABLE ... PARTITION ... SET TBLPROPERTIES (a ParseException); SET SERDEPROPERTIES it has.
            Object queryId = s.getClass().getMethod("getQueryId").invoke(s);
            System.out.println("query id of the INSERT OVERWRITE: " + queryId);
            assertThat(queryId).asString().isNotBlank();
            String token = UUID.randomUUID().toString();
            s.execute("ALTER TABLE orders PARTITION (dt='" + DAY + "') SET SERDEPROPERTIES ('loadgate.publish-token'='"
                    + token + "')");
            assertThat(partitionParameters(s)).contains("loadgate.publish-token=" + token);

            String second = publishDirectory(hadoop, 5_000, 300, false);
            s.execute(stagingTable("stage_run_2", second));
            s.execute(insertOverwrite("stage_run_2"));

            assertThat(partition(s)).as("replaced").containsExactly(300L, 300L, 5_000L, 5_299L);
            List<String> afterReplace = partitionParameters(s);
            System.out.println("partition parameters after the second INSERT OVERWRITE: " + afterReplace);
            assertThat(afterReplace).as("an INSERT OVERWRITE drops the SerDe parameters set since, a token with them")
                    .noneMatch(p -> p.startsWith("loadgate.publish-token="));
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM stage_run_1")) {
                rs.next();
                assertThat(rs.getLong(1)).as("the first run's files are the staging table's, untouched")
                        .isEqualTo(1_000);
            }
        }
    }

    /**
     * A run's chunks of {@code rows} orders of {@link #DAY} written by the worker's writer, and (when {@code seed})
     * a zombie attempt's chunks of the same rows, a {@code _tmp} file and a rejects file beside them; returns the
     * directory built from the ledger's list of the run's chunks.
     */
    private String publishDirectory(Configuration hadoop, long firstId, int rows, boolean seed) throws Exception {
        Path runDirectory = Files.createDirectories(work.resolve("stage/run_id=" + UUID.randomUUID()));
        URI directory = runDirectory.toUri();
        List<StagedChunk> chunks = write(hadoop, directory, firstId, rows, 2);
        if (seed) {
            List<StagedChunk> zombie = write(hadoop, directory, firstId, rows, 1);
            Path aChunk = Path.of(chunks.get(0).path());
            Files.copy(aChunk, runDirectory.resolve("_tmp.000005_1"));
            Files.copy(Path.of(zombie.get(0).path()), runDirectory.resolve("part-0000-rejects-a2-0badf00d.parquet"));
        }
        List<StagedFile> ledger = chunks.stream()
                .map(chunk -> new StagedFile(chunk.path().toString(), chunk.recordCount(), chunk.byteCount())).toList();
        return PublishDirectory.build(ledger, 1, hadoop);
    }

    private static List<StagedChunk> write(Configuration hadoop, URI directory, long firstId, int rows, int attempt) {
        ChunkWriter writer = new ChunkWriter(hadoop, directory, StagedRuns.ORDERS,
                new StagingSpec(directory, 400, Compression.ZSTD));
        return writer.writePartition(new ChunkNaming("0000", attempt, UUID.randomUUID()),
                StagedRuns.orders(DAY, firstId, rows).iterator());
    }

    private static String stagingTable(String name, String location) {
        return "CREATE EXTERNAL TABLE " + name + " (id bigint, amount decimal(12,2), order_date date) STORED AS PARQUET"
                + " LOCATION '" + location + "'";
    }

    private static String insertOverwrite(String staging) {
        return "INSERT OVERWRITE TABLE orders PARTITION (dt='" + DAY + "') SELECT id, amount, order_date FROM "
                + staging;
    }

    /**
     * The partition's parameters and its storage's SerDe parameters as {@code DESCRIBE FORMATTED} lists them (rows
     * with an empty first column), {@code key=value}.
     */
    private static List<String> partitionParameters(Statement s) throws Exception {
        List<String> parameters = new java.util.ArrayList<>();
        try (ResultSet rs = s.executeQuery("DESCRIBE FORMATTED orders PARTITION (dt='" + DAY + "')")) {
            while (rs.next()) {
                String first = rs.getString(1) == null ? "" : rs.getString(1).strip();
                if (first.isEmpty() && rs.getString(2) != null && rs.getString(3) != null) {
                    parameters.add(rs.getString(2).strip() + "=" + rs.getString(3).strip());
                }
            }
        }
        return parameters;
    }

    /** count(*), count(DISTINCT id), min(id), max(id) of the key's partition, through Hive. */
    private static List<Long> partition(Statement s) throws Exception {
        try (ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM orders"
                + " WHERE dt='" + DAY + "'")) {
            assertThat(rs.next()).isTrue();
            return List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
        }
    }
}
