package io.loadgate.worker.testing;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.worker.publish.CatalogConfig;
import java.nio.file.Path;

/** Iceberg catalogs for tests: a JDBC catalog on a fresh PostgreSQL database, so no two tests share a table. */
public final class Lakehouses {
    private Lakehouses() {
    }

    /** A JDBC catalog on a new database, its tables' files under {@code warehouse}. */
    public static CatalogConfig jdbcCatalog(Path warehouse) {
        TestDatabase database = TestDatabases.create();
        return CatalogConfig.jdbc(database.jdbcUrl(), database.user(), database.password(), warehouse);
    }
}
