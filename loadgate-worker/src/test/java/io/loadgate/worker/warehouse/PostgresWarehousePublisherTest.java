package io.loadgate.worker.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.worker.testing.Fences;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    void aHolderOfTheKeyThatEndsWithinTheGraceIsWaitedForNotEnded() throws Exception {
        String day = "2026-11-28";
        try (Connection holder = connect(); Connection next = connect()) {
            holder.setAutoCommit(false);
            connector().dialect().lockBusinessKeyToPublish(holder, orders, day, Fences.next());
            next.setAutoCommit(false);
            // The holder commits once the next publish waits for the key, well within the grace.
            CompletableFuture<Void> committed = CompletableFuture.runAsync(() -> {
                try {
                    while (count(sessionsWaitingForALock()) == 0) {
                        Thread.sleep(10);
                    }
                    holder.commit();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });

            connector().dialect().lockBusinessKeyToPublish(next, orders, day, Fences.next());

            committed.get(10, TimeUnit.SECONDS);
            assertThat(holder.isValid(5)).as("the holder committed and its session lives").isTrue();
            try (Statement show = next.createStatement();
                 ResultSet rs = show.executeQuery("SELECT current_setting('lock_timeout')")) {
                rs.next();
                assertThat(rs.getString(1)).as("the wait's lock_timeout is not left to the publish").isEqualTo("0");
            }
            next.rollback();
        }
    }

    @Test
    void aCommitWhoseSessionWasEndedIsUnknownToo() throws Exception {
        // FATAL 57P01, as pg_terminate_backend ends a session: one ended while committing may have committed.
        assertACommitThatTookEffectButFailedWithIsUnknown("57P01");
    }
}
