package io.loadgate.worker.job;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Hive table reached through a Hive Metastore ({@code target.hive}): an EXTERNAL Parquet table whose partitions the
 * publisher points at directories holding exactly a run's data files.
 *
 * @param metastoreUri {@code thrift://host:9083} (several, comma-separated, as Hive takes them)
 * @param properties the rest of a {@code hive-site.xml}, passed to the metastore client as they are (SASL, timeouts)
 * @param partitioning which Hive partition columns the business key becomes; {@link HivePartitioning#DT} by default
 */
public record HiveSpec(String metastoreUri, Map<String, String> properties, HivePartitioning partitioning) {
    private static final Pattern THRIFT_URIS = Pattern.compile("thrift://[^,\\s]+(,thrift://[^,\\s]+)*");

    public HiveSpec {
        SourceSpec.requireText("target.hive.metastore_uri", metastoreUri);
        if (!THRIFT_URIS.matcher(metastoreUri).matches()) {
            throw new IllegalArgumentException("target.hive.metastore_uri must be thrift://host:port (comma-separated"
                    + " for several), got '" + metastoreUri + "'");
        }
        properties = properties == null ? Map.of() : Map.copyOf(properties);
        partitioning = partitioning == null ? HivePartitioning.DT : partitioning;
    }
}
