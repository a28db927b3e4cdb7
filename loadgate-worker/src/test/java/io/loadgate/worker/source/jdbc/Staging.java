package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.SourceRecords;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.validation.MetricValues;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** What the source tests do around a source: stage a partition as a worker would, read files back, compare rows. */
final class Staging {
    static final Configuration HADOOP = new Configuration();

    private Staging() {
    }

    static List<StagedChunk> stage(Source source, SourcePlan plan, Partition partition, StagingSpec staging, String businessKey) {
        URI runDirectory = URI.create(staging.root().toString().replaceAll("/+$", "") + "/JOB/run_id=" + plan.snapshotRef());
        try (PartitionRows rows = source.readPartition(plan.snapshotRef(), partition, businessKey)) {
            Schema schema = SourceSchemas.toIceberg(rows.columns());
            ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, schema, staging);
            return writer.writePartition(new ChunkNaming(partition.partitionId(), 1, UUID.randomUUID()), SourceRecords.of(schema, rows));
        }
    }

    static List<Record> read(Schema schema, List<URI> files) throws IOException {
        List<Record> records = new ArrayList<>();
        try (CloseableIterable<Record> read = new StagedFilesReader(HADOOP).read(schema, files)) {
            read.forEach(records::add);
        }
        return records;
    }

    /** Rows read directly, without a snapshot or partitions, as records of the staged schema. */
    static List<Record> sourceRows(Connection connection, String sql) throws SQLException {
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            List<SourceColumn> columns = JdbcValues.describe(rs.getMetaData());
            Schema schema = SourceSchemas.toIceberg(columns);
            List<Record> records = new ArrayList<>();
            while (rs.next()) {
                Record record = GenericRecord.create(schema);
                for (int i = 0; i < columns.size(); i++) {
                    record.set(i, JdbcValues.read(rs, i + 1, columns.get(i)));
                }
                records.add(record);
            }
            return records;
        }
    }

    static List<Record> sortedByRowId(List<Record> records) {
        List<Record> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparing(r -> (Integer) r.getField("row_id")));
        return sorted;
    }

    /** SHA-256 over every value of every record, in order, with each value's class. */
    static String checksum(List<Record> records) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (Record record : records) {
            for (int i = 0; i < record.size(); i++) {
                Object value = record.get(i);
                digest.update((value == null ? "\u0000" : value.getClass().getSimpleName() + ":" + MetricValues.format(value))
                        .getBytes(StandardCharsets.UTF_8));
                digest.update((byte) '|');
            }
            digest.update((byte) '\n');
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
