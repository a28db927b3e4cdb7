package io.loadgate.server;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.dispatch.Dispatcher;
import io.loadgate.server.dispatch.NotificationHub;
import io.loadgate.server.dispatch.NotificationListener;
import io.loadgate.server.sweeper.Sweeper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's background loops: the push dispatcher (only when {@code dispatch.receiver_url} is set) and the
 * sweeper. The server runs them beside its API; {@code loadgate control-loop} runs them alone, for a deployment
 * that scales the API and the loops apart. Any number may run against one database: leases use SKIP LOCKED and
 * the sweeper tick takes an advisory lock.
 */
public final class ControlLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlLoop.class);

    private final Optional<Dispatcher> dispatcher;
    private final Sweeper sweeper;
    private final List<AutoCloseable> owned;

    private ControlLoop(Optional<Dispatcher> dispatcher, Sweeper sweeper, List<AutoCloseable> owned) {
        this.dispatcher = dispatcher;
        this.sweeper = sweeper;
        this.owned = owned;
    }

    /** Starts the loops over a ledger whose notifications {@code hub} already receives. */
    public static ControlLoop start(Ledger ledger, NotificationHub hub, LoadgateConfig config) {
        requireNonNull(ledger, "ledger is null");
        requireNonNull(hub, "hub is null");
        requireNonNull(config, "config is null");
        Optional<Dispatcher> dispatcher = config.dispatch().receiverUrl().map(url -> new Dispatcher(
                new Dispatches(ledger.database()), Dispatcher.Settings.of(config.dispatch()), hub,
                Dispatcher.processName()).start());
        if (dispatcher.isEmpty()) {
            LOG.info("no dispatch.receiver_url: nothing is pushed; workers lease with POST /v1/dispatches/lease");
        }
        Sweeper sweeper = new Sweeper(new Sweep(ledger.database(), ledger.settings()),
                Sweeper.thresholds(config.recovery(), config.dispatch()), config.recovery().sweeperInterval()).start();
        return new ControlLoop(dispatcher, sweeper, List.of());
    }

    /** The loops without the API: opens the database, listens for notifications, starts both loops. */
    public static ControlLoop standalone(LoadgateConfig config) {
        requireNonNull(config, "config is null");
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            LoadgateServer.LedgerDatabase db = LoadgateServer.LedgerDatabase.open(config);
            owned.add(0, db);
            Ledger ledger = new Ledger(new Database(db.dataSource()), LoadgateServer.settings(config));
            NotificationHub hub = new NotificationHub();
            owned.add(0, NotificationListener.start(listenerConnections(db.dataSource()), hub));
            ControlLoop loops = start(ledger, hub, config);
            return new ControlLoop(loops.dispatcher, loops.sweeper, owned);
        } catch (RuntimeException e) {
            LoadgateServer.closeAll(owned);
            throw e;
        }
    }

    /** The listener's own connection, outside the pool, to the pool's database. */
    static NotificationListener.ConnectionSource listenerConnections(HikariDataSource pool) {
        return () -> {
            Connection connection = DriverManager.getConnection(pool.getJdbcUrl(), pool.getUsername(),
                    pool.getPassword());
            connection.setAutoCommit(true);
            return connection;
        };
    }

    public Optional<Dispatcher> dispatcher() {
        return dispatcher;
    }

    public Sweeper sweeper() {
        return sweeper;
    }

    /** Stops the loops first (each finishes its pass), then whatever {@link #standalone} opened. */
    @Override
    public void close() {
        dispatcher.ifPresent(Dispatcher::close);
        sweeper.close();
        LoadgateServer.closeAll(owned);
    }
}
