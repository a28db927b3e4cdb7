package io.loadgate.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLoaderTest {
    private static final String HOME = "/srv/loadgate";
    private static final String D1 = "a".repeat(64);
    private static final String D2 = "0123456789abcdef".repeat(4);
    private static final String D3 = "f".repeat(64);

    @TempDir
    Path dir;

    @Test
    void pinsEveryDefault() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", HOME));

        assertThat(config).isEqualTo(new LoadgateConfig(
                new ServerConfig("0.0.0.0", 8080, null),
                new DatabaseConfig(Optional.empty(), "loadgate", "", 10),
                new AuthConfig(
                        Map.of("worker", List.of(), "operator", List.of(), "viewer", List.of()),
                        List.of("/data/loadgate/stage", "/srv/loadgate/stage", "file:///srv/loadgate/stage")),
                new RecoveryConfig(RecoveryMode.FAIL, 3, Duration.ofMinutes(90), Duration.ofHours(6),
                        Duration.ofHours(1), Duration.ofMinutes(60), Duration.ofHours(2), Duration.ofHours(2),
                        Duration.ofMinutes(1), Duration.ofSeconds(30)),
                new DispatchConfig(Optional.empty(), 20, Duration.ofSeconds(5), Duration.ofMinutes(5),
                        Duration.ofMinutes(10), Duration.ofSeconds(60), Duration.ofSeconds(5), 20),
                new CleanupConfig(Duration.ofDays(3), Duration.ofDays(14), 200, Duration.ofDays(2), 1),
                Path.of(HOME)));
    }

    @Test
    void homeDefaultsToDotLoadgateUnderUserHome() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(), Map.of());

        Path home = Path.of(System.getProperty("user.home"), ".loadgate");
        assertThat(config.home()).isEqualTo(home);
        assertThat(config.auth().allowedRoots()).containsExactly("/data/loadgate/stage", home + "/stage",
                home.resolve("stage").toUri().toString());
    }

    @Test
    void readsTheSpecExample() throws IOException {
        Path file = write("""
                server:   {host: 0.0.0.0, port: 8080}
                database: {url: "jdbc:postgresql://db:5432/loadgate", user: loadgate, password: "${LOADGATE_DB_PASSWORD}"}
                auth:
                  token_digests:
                    worker:   ["%s"]
                    operator: ["%s", "%s"]
                    viewer:   []
                  allowed_roots: ["/data/loadgate/stage", "file:///var/lib/loadgate/stage"]
                recovery: {mode: REISSUE, max_attempts: 3, stale: 90m, extract_query_timeout: 60m, publish_stale: 2h}
                dispatch: {receiver_url: "http://nifi-01:9099/control", ack_timeout: 10m}
                cleanup:  {success_retention: 3d, failed_retention: 14d}
                """.formatted(D1, D2, D3));

        LoadgateConfig config = ConfigLoader.load(Optional.of(file),
                Map.of("LOADGATE_DB_PASSWORD", "s3cret", "LOADGATE_HOME", HOME));

        assertThat(config.server()).isEqualTo(new ServerConfig("0.0.0.0", 8080, null));
        assertThat(config.database()).isEqualTo(
                new DatabaseConfig(Optional.of("jdbc:postgresql://db:5432/loadgate"), "loadgate", "s3cret", 10));
        assertThat(config.auth().tokenDigests()).isEqualTo(
                Map.of("worker", List.of(D1), "operator", List.of(D2, D3), "viewer", List.of()));
        assertThat(config.auth().allowedRoots())
                .containsExactly("/data/loadgate/stage", "file:///var/lib/loadgate/stage");
        assertThat(config.recovery().mode()).isEqualTo(RecoveryMode.REISSUE);
        assertThat(config.recovery().stale()).isEqualTo(Duration.ofMinutes(90));
        assertThat(config.recovery().extractQueryTimeout()).isEqualTo(Duration.ofMinutes(60));
        assertThat(config.recovery().runTimeout()).as("not in the file, so the default").isEqualTo(Duration.ofHours(6));
        assertThat(config.dispatch().receiverUrl()).contains(URI.create("http://nifi-01:9099/control"));
        assertThat(config.cleanup().failedRetention()).isEqualTo(Duration.ofDays(14));
        assertThat(config.home()).isEqualTo(Path.of(HOME));
    }

    @Test
    void environmentOverridesTheFileIncludingNestedKeysAndLists() throws IOException {
        Path file = write("""
                recovery: {mode: REISSUE, stale: 90m}
                auth:
                  token_digests: {worker: ["%s"]}
                """.formatted(D1));

        LoadgateConfig config = ConfigLoader.load(Optional.of(file), Map.of(
                "LOADGATE_HOME", HOME,
                "LOADGATE_RECOVERY__MODE", "FAIL",
                "LOADGATE_SERVER__PORT", "9443",
                "LOADGATE_SERVER__TLS__KEYSTORE", "/etc/loadgate/server.p12",
                "LOADGATE_SERVER__TLS__PASSWORD", "changeit",
                "LOADGATE_AUTH__TOKEN_DIGESTS__WORKER", D2 + "," + D3,
                "LOADGATE_AUTH__ALLOWED_ROOTS", "/stage/a, file:///stage/b",
                "LOADGATE_DISPATCH__RECEIVER_URL", "https://nifi:9443/control"));

        assertThat(config.recovery().mode()).isEqualTo(RecoveryMode.FAIL);
        assertThat(config.recovery().stale()).isEqualTo(Duration.ofMinutes(90));
        assertThat(config.server()).isEqualTo(
                new ServerConfig("0.0.0.0", 9443, new TlsConfig(Path.of("/etc/loadgate/server.p12"), "changeit")));
        assertThat(config.auth().digests("worker")).as("the variable replaces the file's list").containsExactly(D2, D3);
        assertThat(config.auth().allowedRoots()).containsExactly("/stage/a", "file:///stage/b");
        assertThat(config.dispatch().receiverUrl()).contains(URI.create("https://nifi:9443/control"));
    }

    @Test
    void monitorFreshnessIsAListOfJobKeyEqualsDuration() throws IOException {
        Path file = write("monitor: {stuck_after: 20m, freshness: [\"orders=26h\", \"customers = 2h\"]}");

        LoadgateConfig config = ConfigLoader.load(Optional.of(file), Map.of("LOADGATE_HOME", HOME));

        assertThat(config.monitor()).isEqualTo(new MonitorConfig(Duration.ofMinutes(20),
                Map.of("orders", Duration.ofHours(26), "customers", Duration.ofHours(2))));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", HOME,
                "LOADGATE_MONITOR__FRESHNESS", "a=1d,b=90m")).monitor().freshness())
                .containsExactly(Map.entry("a", Duration.ofDays(1)), Map.entry("b", Duration.ofMinutes(90)));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(write("monitor: {freshness: [\"orders\"]}")),
                Map.of("LOADGATE_HOME", HOME))).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("monitor.freshness entry 'orders' is not JOB_KEY=DURATION, e.g. orders=26h");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(write("monitor: {freshness: [\"a=1d\", \"a=2d\"]}")),
                Map.of("LOADGATE_HOME", HOME))).hasMessageStartingWith("monitor.freshness names job a twice");
    }

    @Test
    void anEmptyListVariableClearsTheList() throws IOException {
        Path file = write("auth: {token_digests: {viewer: [\"%s\"]}}".formatted(D1));

        LoadgateConfig config = ConfigLoader.load(Optional.of(file),
                Map.of("LOADGATE_HOME", HOME, "LOADGATE_AUTH__TOKEN_DIGESTS__VIEWER", ""));

        assertThat(config.auth().digests("viewer")).isEmpty();
    }

    @Test
    void nifiDigestsAreWorkerDigests() throws IOException {
        Path file = write("""
                auth:
                  token_digests: {worker: ["%s"], nifi: ["%s", "%s"]}
                """.formatted(D1, D2, D1));

        LoadgateConfig config = ConfigLoader.load(Optional.of(file), Map.of("LOADGATE_HOME", HOME));

        assertThat(config.auth().tokenDigests()).containsOnlyKeys("worker", "operator", "viewer");
        assertThat(config.auth().digests("worker")).containsExactly(D1, D2);
    }

    @Test
    void secondsWorkForEveryThreshold() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(), Map.ofEntries(
                Map.entry("LOADGATE_HOME", HOME),
                Map.entry("LOADGATE_RECOVERY__STALE", "3s"),
                Map.entry("LOADGATE_RECOVERY__EXTRACT_QUERY_TIMEOUT", "2s"),
                Map.entry("LOADGATE_RECOVERY__RUN_TIMEOUT", "5s"),
                Map.entry("LOADGATE_RECOVERY__MANIFEST_TIMEOUT", "4s"),
                Map.entry("LOADGATE_RECOVERY__VALIDATION_STALE", "1s"),
                Map.entry("LOADGATE_RECOVERY__PUBLISH_STALE", "1s"),
                Map.entry("LOADGATE_RECOVERY__SWEEPER_INTERVAL", "200ms"),
                Map.entry("LOADGATE_RECOVERY__HEARTBEAT_INTERVAL", "300ms"),
                Map.entry("LOADGATE_DISPATCH__BACKOFF_MIN", "100ms"),
                Map.entry("LOADGATE_DISPATCH__BACKOFF_MAX", "1s"),
                Map.entry("LOADGATE_DISPATCH__ACK_TIMEOUT", "2s"),
                Map.entry("LOADGATE_DISPATCH__LEASE", "1s"),
                Map.entry("LOADGATE_DISPATCH__POLL_INTERVAL", "50ms"),
                Map.entry("LOADGATE_CLEANUP__SUCCESS_RETENTION", "1s"),
                Map.entry("LOADGATE_CLEANUP__FAILED_RETENTION", "1s")));

        assertThat(config.recovery()).isEqualTo(new RecoveryConfig(RecoveryMode.FAIL, 3, Duration.ofSeconds(3),
                Duration.ofSeconds(5), Duration.ofSeconds(4), Duration.ofSeconds(2), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofMillis(300)));
        assertThat(config.dispatch().pollInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.cleanup().successRetention()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void variablesWithoutDoubleUnderscoreAreNotConfigKeys() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(),
                Map.of("LOADGATE_HOME", HOME, "LOADGATE_DB_PASSWORD", "x", "LOADGATE_TOKEN", "t", "PATH", "/bin"));

        assertThat(config.database().password()).isEmpty();
    }

    @Test
    void emptySectionsAndAnEmptyFileMeanDefaults() throws IOException {
        LoadgateConfig defaults = ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", HOME));

        assertThat(ConfigLoader.load(Optional.of(write("")), Map.of("LOADGATE_HOME", HOME))).isEqualTo(defaults);
        assertThat(ConfigLoader.load(Optional.of(write("recovery:\n  # stale: 90m\ndispatch:\n")),
                Map.of("LOADGATE_HOME", HOME))).isEqualTo(defaults);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            recovery: {stael: 90m}                          | unknown config key recovery.stael; known keys of recovery: extract_query_timeout, heartbeat_interval, manifest_timeout, max_attempts, mode, publish_stale, run_timeout, stale, sweeper_interval, validation_stale
            servre: {port: 1}                               | unknown config key servre; known keys: auth, cleanup, database, dispatch, monitor, recovery, server
            server: {port: {a: 1}}                          | server.port: expected a whole number, got a mapping
            server: {port: eighty}                          | server.port: expected a whole number, got 'eighty'
            server: {port: 80.5}                            | server.port: expected a whole number, got 80.5
            server: {port: 99999999999}                     | server.port: expected a whole number, got 99999999999
            server: {port: 70000}                           | server.port must be between 0 and 65535, got 70000
            server: {port: -1}                              | server.port must be between 0 and 65535, got -1
            server: {host: " "}                             | server.host must not be blank
            server: {tls: {keystore: /etc/k.p12}}           | server.tls.password is required with server.tls.keystore ("" for a key store without one)
            server: {tls: {password: x}}                    | server.tls.keystore is required when server.tls.password is set
            server: 8080                                    | server must be a mapping of keys, got 8080
            database: {password: 12345}                     | database.password: expected a string (quote it), got a number
            database: {url: }                               | database.url: expected a string (quote it), got an empty value
            database: {url: "jdbc:mysql://db/x"}            | database.url must be a jdbc:postgresql: URL, got 'jdbc:mysql://db/x'
            database: {pool_size: 0}                        | database.pool_size must be at least 1, got 0
            auth: {token_digests: {admin: []}}              | unknown role auth.token_digests.admin, roles are worker, nifi, operator, viewer
            auth: {token_digests: {worker: ["abc"]}}        | auth.token_digests.worker must hold SHA-256 digests as 64 lowercase hex characters, got 'abc'
            auth: {token_digests: {nifi: ["ABC"]}}          | auth.token_digests.nifi must hold SHA-256 digests as 64 lowercase hex characters, got 'ABC'
            auth: {token_digests: {viewer: "x"}}            | auth.token_digests.viewer: expected a list such as ["a", "b"], got 'x'
            auth: {token_digests: {viewer: [1]}}            | auth.token_digests.viewer: expected a list of strings, got a list
            auth: {allowed_roots: []}                       | auth.allowed_roots must not be empty; leave it out to allow the default roots
            auth: {allowed_roots: ["stage"]}                | auth.allowed_roots entries must be absolute paths or URIs such as file:///data, got 'stage'
            recovery: {mode: RETRY}                         | recovery.mode must be one of FAIL, REISSUE, got 'RETRY'
            recovery: {mode: reissue}                       | recovery.mode must be one of FAIL, REISSUE, got 'reissue'
            recovery: {max_attempts: 0}                     | recovery.max_attempts must be at least 1, got 0
            recovery: {max_attempts: -3}                    | recovery.max_attempts must be at least 1, got -3
            recovery: {stale: 90}                           | recovery.stale: expected a duration such as 90m (a number needs a unit), got 90
            recovery: {run_timeout: 6 hours}                | recovery.run_timeout: expected a duration such as 500ms, 10s, 90m, 2h or 3d, got '6 hours'
            recovery: {sweeper_interval: 0s}                | recovery.sweeper_interval must be a positive duration, got 0s
            recovery: {validation_stale: -2h}               | recovery.validation_stale: expected a duration such as 500ms, 10s, 90m, 2h or 3d, got '-2h'
            dispatch: {receiver_url: "ftp://nifi/x"}        | dispatch.receiver_url must be an http:// or https:// URL with a host, got 'ftp://nifi/x'
            dispatch: {receiver_url: "nifi:9099"}           | dispatch.receiver_url must be an http:// or https:// URL with a host, got 'nifi:9099'
            dispatch: {receiver_url: "http://a b"}          | dispatch.receiver_url is not a valid URI: Illegal character in authority at index 7: http://a b
            dispatch: {receiver_url: "http://u:pw@/x"}      | dispatch.receiver_url must be an http:// or https:// URL with a host, got 'http://****@/x'
            dispatch: {batch: 0}                            | dispatch.batch must be at least 1, got 0
            dispatch: {lease: 0ms}                          | dispatch.lease must be a positive duration, got 0s
            dispatch: {backoff_min: 10m}                    | dispatch.backoff_min (10m) must not exceed dispatch.backoff_max (5m)
            cleanup: {max_batch: 0}                         | cleanup.max_batch must be at least 1, got 0
            cleanup: {success_retention: 3}                 | cleanup.success_retention: expected a duration such as 90m (a number needs a unit), got 3
            database: {password: "${NOT_SET}"}              | database.password refers to ${NOT_SET}, which is not set in the environment
            database: {user: "${1X}"}                       | database.user has a malformed ${...} reference; names are letters, digits and _
            """)
    void rejectsABadFileValueNamingTheKeyAndTheFile(String yaml, String message) throws IOException {
        Path file = write(yaml);

        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(file), Map.of("LOADGATE_HOME", HOME)))
                .isInstanceOf(ConfigException.class)
                .hasMessage(message + " (in " + file + ")")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            LOADGATE_RECOVERY__STAEL                   | 90m   | unknown config key recovery.stael; known keys of recovery: extract_query_timeout, heartbeat_interval, manifest_timeout, max_attempts, mode, publish_stale, run_timeout, stale, sweeper_interval, validation_stale
            LOADGATE_SERVER__TLS                       | x     | unknown config key server.tls; known keys of server: host, port, tls
            LOADGATE_AUTH__TOKEN_DIGESTS__ROOT         | x     | unknown role auth.token_digests.root, roles are worker, nifi, operator, viewer
            LOADGATE_AUTH__TOKEN_DIGESTS__OPERATOR     | a,,b  | auth.token_digests.operator has an empty entry in 'a,,b'
            LOADGATE_AUTH__TOKEN_DIGESTS__OPERATOR     | a     | auth.token_digests.operator must hold SHA-256 digests as 64 lowercase hex characters, got 'a'
            LOADGATE_RECOVERY__MODE                    | NONE  | recovery.mode must be one of FAIL, REISSUE, got 'NONE'
            LOADGATE_SERVER__PORT                      | 80x   | server.port: expected a whole number, got '80x'
            LOADGATE_DISPATCH__MAX_ATTEMPTS            | 0     | dispatch.max_attempts must be at least 1, got 0
            LOADGATE_DISPATCH__ACK_TIMEOUT             | 10    | dispatch.ack_timeout: expected a duration such as 500ms, 10s, 90m, 2h or 3d, got '10'
            LOADGATE_RECOVERY__STALE                   | 60m   | recovery.stale (1h) must exceed recovery.extract_query_timeout (1h)
            """)
    void rejectsABadVariableNamingTheKeyAndTheVariable(String name, String value, String message) {
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", HOME, name, value)))
                .isInstanceOf(ConfigException.class)
                .hasMessage(message + " (from environment " + name + ")");
    }

    @Test
    void staleMustExceedTheExtractQueryTimeout() throws IOException {
        Path equal = write("recovery: {stale: 60m, extract_query_timeout: 60m}");
        Path below = write("recovery: {stale: 30s, extract_query_timeout: 1m}");
        Path above = write("recovery: {stale: 11s, extract_query_timeout: 10s, heartbeat_interval: 1s}");

        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(equal), Map.of("LOADGATE_HOME", HOME)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("recovery.stale (1h) must exceed recovery.extract_query_timeout (1h) (in " + equal + ")");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(below), Map.of("LOADGATE_HOME", HOME)))
                .hasMessage("recovery.stale (30s) must exceed recovery.extract_query_timeout (1m) (in " + below + ")");
        assertThat(ConfigLoader.load(Optional.of(above), Map.of("LOADGATE_HOME", HOME)).recovery().stale())
                .isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void staleWindowsMustSpanSeveralHeartbeats() throws IOException {
        // Below three beats a partition (or validation) whose worker is alive would be timed out between its beats.
        Path stale = write("recovery: {stale: 20s, extract_query_timeout: 10s}");
        Path validation = write("recovery: {validation_stale: 89s}");
        Path shorter = write("recovery: {stale: 20s, extract_query_timeout: 10s, validation_stale: 3s,"
                + " heartbeat_interval: 1s}");

        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(stale), Map.of("LOADGATE_HOME", HOME)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("recovery.stale (20s) must be at least 3 times recovery.heartbeat_interval (30s), or steps"
                        + " whose workers are alive are taken from them between two heartbeats (in " + stale + ")")
                .extracting(e -> ((ConfigException) e).key()).isEqualTo(Optional.of("recovery.stale"));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(validation), Map.of("LOADGATE_HOME", HOME)))
                .isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).key()).isEqualTo(Optional.of("recovery.validation_stale"));
        assertThat(ConfigLoader.load(Optional.of(shorter), Map.of("LOADGATE_HOME", HOME)).recovery().heartbeatInterval())
                .as("a shorter heartbeat interval allows shorter windows").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theStaleRuleHoldsForRecordsBuiltInCode() {
        assertThatThrownBy(() -> new RecoveryConfig(RecoveryMode.REISSUE, 3, Duration.ofMinutes(30),
                Duration.ofHours(6), Duration.ofHours(1), Duration.ofMinutes(60), Duration.ofHours(2),
                Duration.ofHours(2), Duration.ofMinutes(1), Duration.ofSeconds(30)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("recovery.stale (30m) must exceed recovery.extract_query_timeout (1h)")
                .extracting(e -> ((ConfigException) e).key()).isEqualTo(Optional.of("recovery.stale"));
    }

    @Test
    void rejectsAFileThatIsNotUsableAsAWhole() throws IOException {
        Path missing = dir.resolve("missing.yaml");
        Path duplicate = write("recovery:\n  stale: 90m\n  stale: 10m\n");
        Path list = write("- server\n");
        Path broken = write("server: {port: 1\n");
        Path twoDocuments = write("server: {port: 1}\n---\nserver: {port: 2}\n");
        Map<String, String> env = Map.of("LOADGATE_HOME", HOME);

        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(missing), env))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config file " + missing + " does not exist or is not a regular file");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(duplicate), env))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cannot parse " + duplicate + " at line 3: Duplicate field 'stale'");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(list), env))
                .isInstanceOf(ConfigException.class)
                .hasMessage("the config file must be a mapping of sections (in " + list + ")");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(broken), env))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cannot parse " + broken + " at line ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(twoDocuments), env))
                .isInstanceOf(ConfigException.class)
                .hasMessage("the config file holds more than one YAML document (in " + twoDocuments + ")");
    }

    @ParameterizedTest
    @CsvSource({"relative/home", "' '"})
    void rejectsAHomeThatIsNotAbsolute(String home) {
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", home)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("LOADGATE_HOME must be an absolute path, got '" + home + "'");
    }

    @Test
    void aPlaceholderIsSubstitutedInsideLongerTextAndLists() throws IOException {
        Path file = write("""
                database: {url: "jdbc:postgresql://${DB_HOST}:5432/loadgate"}
                auth: {allowed_roots: ["${STAGE}/a"]}
                """);

        LoadgateConfig config = ConfigLoader.load(Optional.of(file),
                Map.of("LOADGATE_HOME", HOME, "DB_HOST", "db-1", "STAGE", "/mnt/stage"));

        assertThat(config.database().url()).contains("jdbc:postgresql://db-1:5432/loadgate");
        assertThat(config.auth().allowedRoots()).containsExactly("/mnt/stage/a");
    }

    @Test
    void environmentValuesAreTakenLiterally() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(),
                Map.of("LOADGATE_HOME", HOME, "LOADGATE_DATABASE__PASSWORD", "pa${ss}"));

        assertThat(config.database().password()).isEqualTo("pa${ss}");
    }

    @Test
    void secretsAreMaskedWhenLogged() throws IOException {
        Path file = write("""
                server: {tls: {keystore: /etc/k.p12, password: "${KS}"}}
                database: {url: "jdbc:postgresql://db/l?password=urlsecret", user: lg, password: "${PW}"}
                dispatch: {receiver_url: "http://nifi:hooksecret@nifi-01:9099/control"}
                auth: {token_digests: {operator: ["%s"]}}
                """.formatted(D1));

        LoadgateConfig config = ConfigLoader.load(Optional.of(file),
                Map.of("LOADGATE_HOME", HOME, "KS", "kssecret", "PW", "dbsecret"));

        assertThat(config.database().toString())
                .isEqualTo("DatabaseConfig[url=jdbc:postgresql://db/l?password=****, user=lg, password=****, "
                        + "poolSize=10]");
        assertThat(config.server().tls().toString()).isEqualTo("TlsConfig[keystore=/etc/k.p12, password=****]");
        assertThat(config.describe())
                .containsExactly(
                        "home: /srv/loadgate",
                        "server: https://0.0.0.0:8080 (key store /etc/k.p12)",
                        "database: jdbc:postgresql://db/l?password=**** as lg, password ****, pool 10",
                        "auth: token digests operator 1, viewer 0, worker 0; allowed roots /data/loadgate/stage, "
                                + "/srv/loadgate/stage, file:///srv/loadgate/stage",
                        "recovery: mode FAIL, max_attempts 3, stale 90m, run_timeout 6h, manifest_timeout 1h, "
                                + "extract_query_timeout 1h, validation_stale 2h, publish_stale 2h, sweeper_interval 1m, "
                                + "heartbeat_interval 30s",
                        "dispatch: receiver http://****@nifi-01:9099/control, max_attempts 20, backoff 5s..5m, "
                                + "ack_timeout 10m, lease 1m, poll_interval 5s, batch 20",
                        "cleanup: success_retention 3d, failed_retention 14d, max_batch 200",
                        "monitor: stuck_after 30m, freshness none");
        assertThat(String.join("\n", config.describe()) + config)
                .doesNotContain("kssecret", "dbsecret", "urlsecret", "hooksecret");
    }

    @Test
    void describesTheEmbeddedDefault() {
        LoadgateConfig config = ConfigLoader.load(Optional.empty(), Map.of("LOADGATE_HOME", HOME));

        assertThat(config.describe()).contains(
                "server: http://0.0.0.0:8080",
                "database: embedded PostgreSQL under /srv/loadgate on port 15432, pool 10",
                "dispatch: receiver none (pull only), max_attempts 20, backoff 5s..5m, ack_timeout 10m, lease 1m, "
                        + "poll_interval 5s, batch 20");
    }

    private Path write(String yaml) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "loadgate", ".yaml"), yaml);
    }
}
