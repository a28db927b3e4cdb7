package io.loadgate.ledger.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Builds the Hikari pool the ledger runs on; every connection sees schema {@code loadgate} first. */
public final class ConnectionPool {
    static final int SOCKET_TIMEOUT_SECONDS = 15;

    private ConnectionPool() {
    }

    public static HikariDataSource open(String jdbcUrl, String user, String password, int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("loadgate-ledger");
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(-1);
        config.setSchema(LedgerSchema.SCHEMA);
        // A database that stops answering mid-statement (a network dropping packets, a host gone) would otherwise hold
        // the request, and its connection, until TCP gives up, many minutes later. A ledger statement takes
        // milliseconds; past this the connection is dropped and the call answered 503 DATABASE_UNAVAILABLE, which
        // clients retry, before their own request timeout (30 s).
        config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_SECONDS));
        return new HikariDataSource(config);
    }
}
