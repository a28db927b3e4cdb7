package io.loadgate.server.lakehouse;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The Iceberg catalog the ledger owns: the JDBC catalog in its {@code lakehouse} database (the embedded
 * PostgreSQL's) or in its configured database, which workers beside it publish to by default. The ledger serves it
 * to engines over the Iceberg REST protocol. Opened on first use, so a ledger nobody reads tables from pays nothing.
 */
public final class Lakehouse implements AutoCloseable {
    /**
     * The catalog name the workers' default catalog uses ({@code CatalogConfig.DEFAULT_NAME}): a JDBC catalog keys
     * its rows by it, so a different name would show an empty catalog.
     */
    public static final String CATALOG_NAME = "loadgate";

    private final Map<String, String> properties;
    private JdbcCatalog catalog;
    private boolean closed;

    private Lakehouse(Map<String, String> properties) {
        this.properties = properties;
    }

    /**
     * The JDBC catalog on {@code jdbcUrl}, new tables under {@code warehouse}, as the workers open it, writing and
     * reading the tables' files through {@code io}: the workers' own FileIO, so that an engine's commit through the
     * REST catalog is as durable as a worker's publish (the CLI gives the one that forces each metadata file to the
     * disk before the catalog points at it).
     */
    public static Lakehouse jdbc(String jdbcUrl, String user, String password, Path warehouse,
                                 Class<? extends FileIO> io) {
        requireNonNull(jdbcUrl, "jdbcUrl is null");
        requireNonNull(user, "user is null");
        requireNonNull(password, "password is null");
        requireNonNull(warehouse, "warehouse is null");
        requireNonNull(io, "io is null");
        // The workers' catalog properties (CatalogConfig.catalogProperties): the same layout version, or the JDBC
        // catalog would create its tables differently from theirs.
        return new Lakehouse(Map.of("catalog-impl", JdbcCatalog.class.getName(), "uri", jdbcUrl,
                "warehouse", warehouse.toAbsolutePath().toString(), "jdbc.user", user, "jdbc.password", password,
                "jdbc.schema-version", "V1", CatalogProperties.FILE_IO_IMPL, io.getName()));
    }

    /** The catalog, opened now if it is not yet. */
    public synchronized JdbcCatalog catalog() {
        if (closed) {
            throw new IllegalStateException("the lakehouse catalog is closed");
        }
        if (catalog == null) {
            catalog = (JdbcCatalog) CatalogUtil.buildIcebergCatalog(CATALOG_NAME, properties,
                    new org.apache.hadoop.conf.Configuration());
        }
        return catalog;
    }

    @Override
    public synchronized void close() throws java.io.IOException {
        closed = true;
        if (catalog != null) {
            catalog.close();
            catalog = null;
        }
    }
}
