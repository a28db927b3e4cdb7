package io.loadgate.worker.warehouse;

import io.loadgate.ledger.testing.TestDatabases;
import org.junit.jupiter.api.Test;

/** The warehouse contract against PostgreSQL: a fresh database per test. */
class PostgresWarehousePublisherTest extends WarehousePublisherContract {
    @Override
    WarehouseConnector warehouse(String schema) {
        TestDatabases.TestDatabase database = TestDatabases.create();
        return new WarehouseConnector(WarehouseDialect.of(database.jdbcUrl()), database::connect);
    }

    @Override
    String schema() {
        return "dw";
    }

    @Override
    boolean storesNaN() {
        return true;
    }

    @Override
    String sessionsWaitingForALock() {
        return "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    }

    @Override
    String connectionLostState() {
        return "08006";
    }

    @Test
    void aCommitWhoseSessionWasEndedIsUnknownToo() throws Exception {
        // FATAL 57P01, as pg_terminate_backend ends a session: one ended while committing may have committed.
        assertACommitThatTookEffectButFailedWithIsUnknown("57P01");
    }
}
