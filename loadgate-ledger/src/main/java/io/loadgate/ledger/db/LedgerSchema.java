package io.loadgate.ledger.db;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/** Applies the ledger's Flyway migrations to schema {@code loadgate}. */
public final class LedgerSchema {
    public static final String SCHEMA = "loadgate";

    private LedgerSchema() {
    }

    public static void migrate(DataSource dataSource) {
        Flyway.configure()
                .dataSource(dataSource)
                .schemas(SCHEMA)
                .createSchemas(true)
                .locations("classpath:db/migration")
                .load()
                .migrate();
    }
}
