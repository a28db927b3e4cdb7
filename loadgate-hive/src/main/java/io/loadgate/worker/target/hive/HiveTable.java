package io.loadgate.worker.target.hive;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.HivePublishMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * The shape Loadgate gives a Hive table: EXTERNAL (dropping a partition or the table never deletes staged data, which
 * cleanup owns), stored as Parquet, partitioned by {@link HivePartitioning}'s string columns, and carrying the
 * publish sequence {@link #SEQUENCE} that every publish and rollback advances with the metastore's compare-and-set.
 */
record HiveTable(String database, String name, HivePartitioning partitioning) {
    /** The table parameter every publish and rollback compares and sets (HIVE-26882); see {@link HivePublisher}. */
    static final String SEQUENCE = "loadgate.publish-seq";
    static final String INPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat";
    static final String OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat";
    static final String SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe";

    HiveTable {
        requireNonNull(database, "database is null");
        requireNonNull(name, "name is null");
        requireNonNull(partitioning, "partitioning is null");
    }

    static HiveTable of(String table, HivePartitioning partitioning) {
        String[] parts = table.split("\\.");
        return new HiveTable(parts[0], parts[1], partitioning);
    }

    List<FieldSchema> partitionKeys() {
        List<FieldSchema> keys = new ArrayList<>();
        partitioning.columns().forEach(column -> keys.add(new FieldSchema(column, "string", null)));
        return keys;
    }

    /** A new table with {@code columns}; the metastore chooses its location under its external warehouse. */
    Table newTable(List<FieldSchema> columns) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(columns));
        sd.setInputFormat(INPUT_FORMAT);
        sd.setOutputFormat(OUTPUT_FORMAT);
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib(SERDE);
        serde.setParameters(new HashMap<>());
        sd.setSerdeInfo(serde);
        sd.setParameters(new HashMap<>());
        Table table = new Table();
        table.setDbName(database);
        table.setTableName(name);
        table.setTableType(TableType.EXTERNAL_TABLE.name());
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE", SEQUENCE, "0")));
        table.setSd(sd);
        table.setPartitionKeys(partitionKeys());
        return table;
    }

    /**
     * What a metastore table must be for Loadgate to publish into it with {@code mode}; null when it fits. An
     * {@code INSERT OVERWRITE} goes through Hive, which writes the table's own format into its own location, so any
     * table with the partitioning fits that mode.
     */
    String misfit(Table table, HivePublishMode mode) {
        if (mode == HivePublishMode.DIRECTORY && !"TRUE".equalsIgnoreCase(table.getParameters().get("EXTERNAL"))
                && !TableType.EXTERNAL_TABLE.name().equals(table.getTableType())) {
            return "is " + table.getTableType() + ", not EXTERNAL: its partitions cannot point at staged directories";
        }
        if (mode == HivePublishMode.DIRECTORY && !SERDE.equals(table.getSd().getSerdeInfo().getSerializationLib())) {
            return "is not stored as Parquet (SerDe " + table.getSd().getSerdeInfo().getSerializationLib() + ")";
        }
        List<String> keys = table.getPartitionKeys().stream().map(FieldSchema::getName).toList();
        if (!keys.equals(partitioning.columns())) {
            return "is partitioned by " + keys + ", the job's target.hive.partitioning by " + partitioning.columns();
        }
        return null;
    }

    @Override
    public String toString() {
        return database + "." + name;
    }
}
