package io.loadgate.server;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.AttentionRules;
import io.loadgate.server.config.RecoveryConfig;
import io.loadgate.ledger.db.ConnectionPool;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.ledger.db.LedgerSchema;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.server.dispatch.Dispatcher;
import io.loadgate.server.dispatch.NotificationHub;
import io.loadgate.server.dispatch.NotificationListener;
import io.loadgate.server.dispatch.WorkerLeases;
import io.loadgate.server.http.ApiServer;
import io.loadgate.server.lakehouse.Lakehouse;
import io.loadgate.server.metrics.LedgerGauges;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One ledger process: database (embedded unless configured), schema, API, background loops. Wired by hand. */
public final class LoadgateServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoadgateServer.class);

    private final List<AutoCloseable> resources;
    private final Ledger ledger;
    private final ApiServer api;
    private final LedgerDatabase database;

    private LoadgateServer(List<AutoCloseable> resources, Ledger ledger, ApiServer api, LedgerDatabase database) {
        this.resources = resources;
        this.ledger = ledger;
        this.api = api;
        this.database = database;
    }

    /**
     * Starts the ledger of {@code config}; its lakehouse catalog (the Iceberg REST catalog's) reads and writes the
     * tables' files through {@code lakehouseIo}, the FileIO the workers use for the same warehouse.
     */
    public static LoadgateServer start(LoadgateConfig config, Class<? extends FileIO> lakehouseIo) {
        requireNonNull(config, "config is null");
        requireNonNull(lakehouseIo, "lakehouseIo is null");
        if (config.server().port() > 0 && EmbeddedPostgres.portTaken(config.server().port())) {
            // Checked before the database starts, so that the refusal is one line and leaves nothing running.
            throw new IllegalStateException("port " + config.server().port() + " for the ledger API is taken by"
                    + " another program (or another loadgate server): stop it, or set server.port in"
                    + " $LOADGATE_HOME/loadgate.yaml (or LOADGATE_SERVER__PORT)");
        }
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LedgerDatabase db = LedgerDatabase.open(config);
            resources.add(db);
            Ledger ledger = new Ledger(new Database(db.dataSource()), settings(config), attentionRules(config));
            NotificationHub hub = new NotificationHub();
            resources.add(0, NotificationListener.start(ControlLoop.listenerConnections(db.dataSource()), hub));
            PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            WorkerLeases leases = new WorkerLeases(new Dispatches(ledger.database()), hub,
                    Dispatcher.policy(config.dispatch()));
            ApiServer.Tls tls = config.server().tls() == null ? null
                    : new ApiServer.Tls(config.server().tls().keystore(), config.server().tls().password());
            Lakehouse lakehouse = lakehouse(config, db, lakehouseIo);
            resources.add(0, lakehouse);
            ApiServer api = ApiServer.start(new ApiServer.Wiring(ledger, authenticator(config), metrics, leases),
                    config.server().host(), config.server().port(), tls, java.util.Optional.of(lakehouse));
            resources.add(0, api);
            resources.add(0, LedgerGauges.start(ledger.views(), metrics, Duration.ofSeconds(15)));
            // Waiting lease polls end before the API stops; the loops stop before everything else.
            resources.add(0, leases);
            resources.add(0, ControlLoop.start(ledger, hub, config));
            return new LoadgateServer(resources, ledger, api, db);
        } catch (RuntimeException e) {
            closeAll(resources);
            throw e;
        }
    }

    /**
     * The default Iceberg catalog of workers beside this ledger: a {@code lakehouse} database on the embedded
     * PostgreSQL, else the configured database itself; new tables under {@code $LOADGATE_HOME/warehouse}.
     */
    private static Lakehouse lakehouse(LoadgateConfig config, LedgerDatabase db, Class<? extends FileIO> io) {
        java.nio.file.Path warehouse = config.home().resolve("warehouse");
        if (db.embedded() != null) {
            db.embedded().ensureDatabase("lakehouse");
            return Lakehouse.jdbc(db.embedded().jdbcUrl("lakehouse"), db.embedded().user(), "", warehouse, io);
        }
        return Lakehouse.jdbc(db.jdbcUrl(), config.database().user(), config.database().password(), warehouse, io);
    }

    static LedgerSettings settings(LoadgateConfig config) {
        List<StagePath> roots = config.auth().allowedRoots().stream().map(StagePath::parse).toList();
        return new LedgerSettings(roots, config.recovery().mode(), config.recovery().maxAttempts(),
                config.recovery().publishStale(), new LedgerSettings.Retention(config.cleanup().successRetention(),
                        config.cleanup().failedRetention(), config.cleanup().maxBatch()),
                config.recovery().heartbeatInterval());
    }

    static AttentionRules attentionRules(LoadgateConfig config) {
        RecoveryConfig recovery = config.recovery();
        return AttentionRules.of(recovery.manifestTimeout(), recovery.stale(), recovery.validationStale(),
                config.monitor().stuckAfter(), config.monitor().freshness());
    }

    static Authenticator authenticator(LoadgateConfig config) {
        Map<Role, List<String>> digests = new EnumMap<>(Role.class);
        config.auth().tokenDigests().forEach((name, list) ->
                Role.fromConfigName(name).ifPresent(role -> digests.put(role, list)));
        return new Authenticator(digests);
    }

    public int port() {
        return api.port();
    }

    public Ledger ledger() {
        return ledger;
    }

    public String jdbcUrl() {
        return database.jdbcUrl();
    }

    /** The embedded PostgreSQL, when no database URL is configured; it can hold other databases too. */
    public java.util.Optional<EmbeddedPostgres> embedded() {
        return java.util.Optional.ofNullable(database.embedded());
    }

    @Override
    public void close() {
        closeAll(resources);
    }

    static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed: {}", resource.getClass().getSimpleName(), e.getMessage());
            }
        }
    }

    /** The ledger's PostgreSQL: the configured one, or the embedded one under {@code $LOADGATE_HOME/pg}. */
    public record LedgerDatabase(HikariDataSource dataSource, EmbeddedPostgres embedded, String jdbcUrl)
            implements AutoCloseable {
        public static LedgerDatabase open(LoadgateConfig config) {
            EmbeddedPostgres embedded = null;
            String url;
            String user;
            String password;
            if (config.database().url().isPresent()) {
                url = config.database().url().get();
                user = config.database().user();
                password = config.database().password();
            } else {
                embedded = EmbeddedPostgres.start(config.home().resolve("pg"), config.database().embeddedPort());
                embedded.ensureDatabase("loadgate");
                url = embedded.jdbcUrl("loadgate");
                user = embedded.user();
                password = "";
            }
            HikariDataSource pool = ConnectionPool.open(url, user, password, config.database().poolSize());
            try {
                LedgerSchema.migrate(pool);
            } catch (RuntimeException e) {
                pool.close();
                if (embedded != null) {
                    embedded.close();
                }
                throw e;
            }
            return new LedgerDatabase(pool, embedded, url);
        }

        @Override
        public void close() {
            dataSource.close();
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
