package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The whole server configuration, validated once at start-up by {@link ConfigLoader}. {@code home} is
 * {@code $LOADGATE_HOME}: where the embedded PostgreSQL and generated tokens live; it is not a config key.
 */
public record LoadgateConfig(
        ServerConfig server,
        DatabaseConfig database,
        AuthConfig auth,
        RecoveryConfig recovery,
        DispatchConfig dispatch,
        CleanupConfig cleanup,
        Path home,
        MonitorConfig monitor) {
    public LoadgateConfig {
        requireNonNull(monitor, "monitor is null");
        requireNonNull(server, "server is null");
        requireNonNull(database, "database is null");
        requireNonNull(auth, "auth is null");
        requireNonNull(recovery, "recovery is null");
        requireNonNull(dispatch, "dispatch is null");
        requireNonNull(cleanup, "cleanup is null");
        requireNonNull(home, "home is null");
    }

    /** With the monitor's defaults. */
    public LoadgateConfig(ServerConfig server, DatabaseConfig database, AuthConfig auth, RecoveryConfig recovery,
                          DispatchConfig dispatch, CleanupConfig cleanup, Path home) {
        this(server, database, auth, recovery, dispatch, cleanup, home, MonitorConfig.defaults());
    }

    /** A few lines for the start-up log, secrets masked; token digests are counted, not shown. */
    public List<String> describe() {
        String listen = (server.tls() == null ? "http://" : "https://") + server.host() + ":" + server.port()
                + (server.tls() == null ? "" : " (key store " + server.tls().keystore() + ")");
        String db = database.url()
                .map(url -> Masking.url(url) + " as " + database.user() + ", password "
                        + Masking.secret(database.password()))
                .orElse("embedded PostgreSQL under " + home + " on port " + (database.embeddedPort() == 0 ? "any free"
                        : Integer.toString(database.embeddedPort())))
                + ", pool " + database.poolSize();
        String tokens = AuthConfig.ROLES.stream().sorted()
                .map(role -> role + " " + auth.digests(role).size())
                .collect(Collectors.joining(", "));
        return List.of(
                "home: " + home,
                "server: " + listen,
                "database: " + db,
                "auth: token digests " + tokens + "; allowed roots " + String.join(", ", auth.allowedRoots()),
                "recovery: mode " + recovery.mode() + ", max_attempts " + recovery.maxAttempts()
                        + ", stale " + d(recovery.stale()) + ", run_timeout " + d(recovery.runTimeout())
                        + ", manifest_timeout " + d(recovery.manifestTimeout())
                        + ", extract_query_timeout " + d(recovery.extractQueryTimeout())
                        + ", validation_stale " + d(recovery.validationStale())
                        + ", publish_stale " + d(recovery.publishStale())
                        + ", sweeper_interval " + d(recovery.sweeperInterval())
                        + ", heartbeat_interval " + d(recovery.heartbeatInterval()),
                "dispatch: receiver " + dispatch.receiverUrl().map(Masking::uri).orElse("none (pull only)")
                        + ", max_attempts " + dispatch.maxAttempts() + ", backoff " + d(dispatch.backoffMin())
                        + ".." + d(dispatch.backoffMax()) + ", ack_timeout " + d(dispatch.ackTimeout())
                        + ", lease " + d(dispatch.lease()) + ", poll_interval " + d(dispatch.pollInterval())
                        + ", batch " + dispatch.batch(),
                "cleanup: success_retention " + d(cleanup.successRetention()) + ", failed_retention "
                        + d(cleanup.failedRetention()) + ", max_batch " + cleanup.maxBatch(),
                "monitor: stuck_after " + d(monitor.stuckAfter()) + ", freshness " + (monitor.freshness().isEmpty()
                        ? "none" : monitor.freshness().entrySet().stream().map(e -> e.getKey() + "=" + d(e.getValue()))
                        .collect(Collectors.joining(", "))));
    }

    private static String d(Duration duration) {
        return Durations.format(duration);
    }
}
