package io.loadgate.worker.warehouse;

import io.loadgate.ledger.testing.TestDatabases;

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
    String connectionLostState() {
        return "08006";
    }
}
