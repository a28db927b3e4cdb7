package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.nonBlank;
import static io.loadgate.server.config.ConfigChecks.positive;
import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * The ledger's PostgreSQL ({@code database.*}). An empty {@code url} means the embedded PostgreSQL under
 * {@code $LOADGATE_HOME}, which brings its own user; {@code user} and {@code password} apply to a configured url.
 * An empty password means none (trust or a password inside the url).
 *
 * <p>{@code embeddedPort} is the embedded PostgreSQL's port ({@code database.embedded_port}): fixed, so that job files
 * and engine configurations written against a {@code $LOADGATE_HOME} (the demo's source URL) keep working between
 * runs; 0 picks a free port each start, which tests use.
 */
public record DatabaseConfig(Optional<String> url, String user, String password, int poolSize, int embeddedPort) {
    /** Below the ephemeral range, so an outgoing connection never holds it; not PostgreSQL's own 5432. */
    public static final int DEFAULT_EMBEDDED_PORT = 15432;

    public DatabaseConfig(Optional<String> url, String user, String password, int poolSize) {
        this(url, user, password, poolSize, DEFAULT_EMBEDDED_PORT);
    }

    public DatabaseConfig {
        requireNonNull(url, "url is null");
        url.ifPresent(u -> {
            if (!u.startsWith("jdbc:postgresql:")) {
                throw new ConfigException("database.url",
                        "database.url must be a jdbc:postgresql: URL, got '" + Masking.url(u) + "'");
            }
        });
        nonBlank(user, "database.user");
        requireNonNull(password, "database.password is null");
        positive(poolSize, "database.pool_size");
        if (embeddedPort < 0 || embeddedPort > 65535) {
            throw new ConfigException("database.embedded_port",
                    "database.embedded_port must be between 0 and 65535, got " + embeddedPort);
        }
    }

    static DatabaseConfig defaults() {
        return new DatabaseConfig(Optional.empty(), "loadgate", "", 10);
    }

    /** Masks the password, also one carried in the url, since this ends up in start-up logs. */
    @Override
    public String toString() {
        return "DatabaseConfig[url=" + url.map(Masking::url).orElse("<embedded>") + ", user=" + user
                + ", password=" + Masking.secret(password) + ", poolSize=" + poolSize + "]";
    }
}
