package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Builds the {@link LoadgateConfig} once at start-up: defaults, then the YAML file, then {@code LOADGATE_*}
 * environment overrides ({@code LOADGATE_RECOVERY__MODE} sets {@code recovery.mode}; list values are comma
 * separated). Any problem is a {@link ConfigException} with a one-line message naming the key and its source.
 */
public final class ConfigLoader {
    private static final String HOME_VARIABLE = "LOADGATE_HOME";

    private ConfigLoader() {
    }

    /**
     * @param yamlFile the {@code --config} file with snake_case keys; string values may refer to {@code ${VAR}}
     * @param env the process environment, usually {@code System.getenv()}; it supplies overrides, {@code ${VAR}}
     *     values and {@code LOADGATE_HOME} (default {@code ~/.loadgate})
     * @throws ConfigException when the file or any value is unusable
     */
    public static LoadgateConfig load(Optional<Path> yamlFile, Map<String, String> env) {
        requireNonNull(yamlFile, "yamlFile is null");
        requireNonNull(env, "env is null");
        Path home = home(env);
        Settings s = Settings.read(yamlFile, env);
        LoadgateConfig config = new LoadgateConfig(
                server(s), database(s), auth(s, home), recovery(s), dispatch(s), cleanup(s), home, monitor(s));
        s.requireAllRead();
        return config;
    }

    /** {@code $LOADGATE_HOME}, default {@code ~/.loadgate}; fails on a relative path. */
    public static Path home(Map<String, String> env) {
        String value = env.get(HOME_VARIABLE);
        if (value == null) {
            return Path.of(System.getProperty("user.home"), ".loadgate");
        }
        // A relative home would move with the working directory, and the embedded database with it.
        if (value.isBlank() || !Path.of(value).isAbsolute()) {
            throw new ConfigException(HOME_VARIABLE, HOME_VARIABLE + " must be an absolute path, got '" + value + "'");
        }
        return Path.of(value);
    }

    private static ServerConfig server(Settings s) {
        ServerConfig d = ServerConfig.defaults();
        String host = s.string("server.host").orElse(d.host());
        int port = s.integer("server.port", d.port());
        TlsConfig tls = tls(s);
        return s.located(() -> new ServerConfig(host, port, tls));
    }

    /** Null (plain HTTP) unless {@code server.tls} is configured, in which case both keys are required. */
    private static TlsConfig tls(Settings s) {
        Optional<Path> keystore = s.path("server.tls.keystore");
        Optional<String> password = s.string("server.tls.password");
        if (keystore.isEmpty() && password.isEmpty()) {
            return null;
        }
        if (keystore.isEmpty()) {
            throw s.locate(new ConfigException("server.tls.keystore",
                    "server.tls.keystore is required when server.tls.password is set"));
        }
        if (password.isEmpty()) {
            throw s.locate(new ConfigException("server.tls.password",
                    "server.tls.password is required with server.tls.keystore (\"\" for a key store without one)"));
        }
        return s.located(() -> new TlsConfig(keystore.get(), password.get()));
    }

    private static DatabaseConfig database(Settings s) {
        DatabaseConfig d = DatabaseConfig.defaults();
        Optional<String> url = s.string("database.url");
        String user = s.string("database.user").orElse(d.user());
        String password = s.string("database.password").orElse(d.password());
        int poolSize = s.integer("database.pool_size", d.poolSize());
        int embeddedPort = s.integer("database.embedded_port", d.embeddedPort());
        return s.located(() -> new DatabaseConfig(url, user, password, poolSize, embeddedPort));
    }

    private static AuthConfig auth(Settings s, Path home) {
        Map<String, List<String>> digests = new LinkedHashMap<>();
        // NiFi flows know the worker role as `nifi`; it grants exactly what `worker` grants.
        digests.put("worker", Stream.concat(digests(s, "worker").stream(), digests(s, "nifi").stream())
                .distinct().toList());
        digests.put("operator", digests(s, "operator"));
        digests.put("viewer", digests(s, "viewer"));
        List<String> roots = s.list("auth.allowed_roots").orElseGet(() -> AuthConfig.defaultAllowedRoots(home));
        return s.located(() -> new AuthConfig(digests, roots));
    }

    /** Checked per key before merging, so that a bad nifi digest is reported as nifi's. */
    private static List<String> digests(Settings s, String role) {
        String key = "auth.token_digests." + role;
        List<String> digests = s.list(key).orElse(List.of());
        return s.located(() -> AuthConfig.requireDigests(key, digests));
    }

    private static RecoveryConfig recovery(Settings s) {
        RecoveryConfig d = RecoveryConfig.defaults();
        var mode = s.enumValue("recovery.mode", RecoveryMode.class, d.mode());
        var maxAttempts = s.integer("recovery.max_attempts", d.maxAttempts());
        var stale = s.duration("recovery.stale", d.stale());
        var runTimeout = s.duration("recovery.run_timeout", d.runTimeout());
        var manifestTimeout = s.duration("recovery.manifest_timeout", d.manifestTimeout());
        var extractQueryTimeout = s.duration("recovery.extract_query_timeout", d.extractQueryTimeout());
        var validationStale = s.duration("recovery.validation_stale", d.validationStale());
        var publishStale = s.duration("recovery.publish_stale", d.publishStale());
        var sweeperInterval = s.duration("recovery.sweeper_interval", d.sweeperInterval());
        var heartbeatInterval = s.duration("recovery.heartbeat_interval", d.heartbeatInterval());
        return s.located(() -> new RecoveryConfig(mode, maxAttempts, stale, runTimeout, manifestTimeout,
                extractQueryTimeout, validationStale, publishStale, sweeperInterval, heartbeatInterval));
    }

    private static DispatchConfig dispatch(Settings s) {
        DispatchConfig d = DispatchConfig.defaults();
        var receiverUrl = s.uri("dispatch.receiver_url");
        var maxAttempts = s.integer("dispatch.max_attempts", d.maxAttempts());
        var backoffMin = s.duration("dispatch.backoff_min", d.backoffMin());
        var backoffMax = s.duration("dispatch.backoff_max", d.backoffMax());
        var ackTimeout = s.duration("dispatch.ack_timeout", d.ackTimeout());
        var lease = s.duration("dispatch.lease", d.lease());
        var pollInterval = s.duration("dispatch.poll_interval", d.pollInterval());
        var batch = s.integer("dispatch.batch", d.batch());
        return s.located(() -> new DispatchConfig(receiverUrl, maxAttempts, backoffMin, backoffMax, ackTimeout,
                lease, pollInterval, batch));
    }

    private static MonitorConfig monitor(Settings s) {
        MonitorConfig d = MonitorConfig.defaults();
        var stuckAfter = s.duration("monitor.stuck_after", d.stuckAfter());
        var freshness = s.list("monitor.freshness");
        return s.located(() -> new MonitorConfig(stuckAfter,
                freshness.map(MonitorConfig::freshness).orElse(d.freshness())));
    }

    private static CleanupConfig cleanup(Settings s) {
        CleanupConfig d = CleanupConfig.defaults();
        var successRetention = s.duration("cleanup.success_retention", d.successRetention());
        var failedRetention = s.duration("cleanup.failed_retention", d.failedRetention());
        var maxBatch = s.integer("cleanup.max_batch", d.maxBatch());
        var snapshotRetention = s.duration("cleanup.snapshot_retention", d.snapshotRetention());
        var snapshotsKept = s.integer("cleanup.snapshots_kept", d.snapshotsKept());
        return s.located(() -> new CleanupConfig(successRetention, failedRetention, maxBatch, snapshotRetention,
                snapshotsKept));
    }
}
