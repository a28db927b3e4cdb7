package io.loadgate.worker.job;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Hive table reached through a Hive Metastore ({@code target.hive}): by default an EXTERNAL Parquet table whose
 * partitions the publisher points at directories holding exactly a run's data files; with {@code publish:
 * insert_overwrite}, any table HiveServer2 can {@code INSERT OVERWRITE} a partition of.
 *
 * @param metastoreUri {@code thrift://host:9083} (several, comma-separated, as Hive takes them)
 * @param properties the rest of a {@code hive-site.xml}, passed to the metastore client as they are (SASL, timeouts)
 * @param partitioning which Hive partition columns the business key becomes; {@link HivePartitioning#DT} by default
 * @param publish how a run is published; {@link HivePublishMode#DIRECTORY} by default
 * @param hiveserver2 the HiveServer2 of {@link HivePublishMode#INSERT_OVERWRITE} (required there, refused otherwise)
 */
public record HiveSpec(String metastoreUri, Map<String, String> properties, HivePartitioning partitioning,
                       HivePublishMode publish, HiveServer2Spec hiveserver2) {
    private static final Pattern THRIFT_URIS = Pattern.compile("thrift://[^,\\s]+(,thrift://[^,\\s]+)*");

    public HiveSpec {
        SourceSpec.requireText("target.hive.metastore_uri", metastoreUri);
        if (!THRIFT_URIS.matcher(metastoreUri).matches()) {
            throw new IllegalArgumentException("target.hive.metastore_uri must be thrift://host:port (comma-separated"
                    + " for several), got '" + metastoreUri + "'");
        }
        properties = properties == null ? Map.of() : Map.copyOf(properties);
        partitioning = partitioning == null ? HivePartitioning.DT : partitioning;
        publish = publish == null ? HivePublishMode.DIRECTORY : publish;
        if (publish == HivePublishMode.INSERT_OVERWRITE && hiveserver2 == null) {
            throw new IllegalArgumentException("target.hive.publish insert_overwrite needs target.hive.hiveserver2"
                    + " (url, jdbc_driver_path, and user and password_env if HiveServer2 asks for them)");
        }
        if (publish == HivePublishMode.DIRECTORY && hiveserver2 != null) {
            throw new IllegalArgumentException("target.hive.hiveserver2 is used only by target.hive.publish"
                    + " insert_overwrite; publish directory makes metastore calls only");
        }
    }

    /** A table whose partitions the publisher points at directories ({@link HivePublishMode#DIRECTORY}). */
    public HiveSpec(String metastoreUri, Map<String, String> properties, HivePartitioning partitioning) {
        this(metastoreUri, properties, partitioning, HivePublishMode.DIRECTORY, null);
    }
}
