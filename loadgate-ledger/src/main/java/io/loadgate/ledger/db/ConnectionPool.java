package io.loadgate.ledger.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Builds the Hikari pool the ledger runs on; every connection sees schema {@code loadgate} first. */
public final class ConnectionPool {
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
        return new HikariDataSource(config);
    }
}
