package io.loadgate.worker.target.hive;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.security.HadoopThriftAuthBridge;
import org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool;

/**
 * A Hive Metastore 4.0.1 in a JVM of its own ({@link HiveMetastoreChild} starts it): Thrift on a free port bound to
 * 127.0.0.1, its schema made by schematool on a PostgreSQL database, its managed and external warehouses under one
 * root. Its own JVM because the metastore server links Jetty 9 and the ledger Jetty 12: no one class path holds both.
 * The tests run it over HDFS on the test PostgreSQL, {@code loadgate demo --target hive} over the local file system
 * on the demo's embedded PostgreSQL.
 *
 * <p>Arguments: the ready file, the schema scripts' home (the directory holding {@code scripts/metastore/upgrade/
 * postgres}), the JDBC URL and user of the metastore's database, and the warehouse root (a URI); the database's
 * password, if it has one, in {@value #PASSWORD_VARIABLE} (never on a command line, which {@code ps} shows). Once it
 * serves it writes {@code <metastore uri>\n<fs.defaultFS>\n} to the ready file; it lives until its standard input
 * ends, which is when the JVM that started it closes it or ends, however it ends.
 */
public final class HiveMetastoreServer {
    public static final String PASSWORD_VARIABLE = "LOADGATE_METASTORE_DB_PASSWORD";

    /**
     * @param scripts the directory holding {@code scripts/metastore/upgrade/postgres} (from the binary distribution)
     * @param warehouse the root of the managed ({@code managed}) and external ({@code external}) warehouses
     * @param hadoop the file systems' configuration ({@code fs.defaultFS}); the metastore's settings are added to it
     */
    public record Settings(Path scripts, String jdbcUrl, String user, String password, String warehouse,
                           Configuration hadoop) {
        public Settings {
            requireNonNull(scripts, "scripts is null");
            requireNonNull(jdbcUrl, "jdbcUrl is null");
            requireNonNull(user, "user is null");
            requireNonNull(password, "password is null");
            requireNonNull(warehouse, "warehouse is null");
            requireNonNull(hadoop, "hadoop is null");
        }
    }

    private HiveMetastoreServer() {
    }

    public static void main(String[] args) {
        String password = System.getenv(PASSWORD_VARIABLE);
        serve(Path.of(args[0]), () -> new Settings(Path.of(args[1]), args[2], args[3],
                password == null ? "" : password, args[4], new Configuration()));
    }

    /** What a JVM's main must prepare before the metastore starts (a test's HDFS, its database). */
    public interface Preparation {
        Settings prepare() throws Exception;
    }

    /** Prepares, starts the metastore, writes {@code ready}, serves until standard input ends, and exits the JVM. */
    public static void serve(Path ready, Preparation preparation) {
        int status = 0;
        try {
            Settings settings = preparation.prepare();
            String uri = start(settings);
            Path written = Files.writeString(ready.resolveSibling(ready.getFileName() + ".tmp"),
                    uri + "\n" + settings.hadoop().get("fs.defaultFS", "file:///") + "\n");
            Files.move(written, ready, StandardCopyOption.ATOMIC_MOVE);
            System.out.println(Instant.now() + " serving " + uri + ", warehouse " + settings.warehouse());
            while (System.in.read() != -1) {
                // Nothing is sent; the read returns -1 when the JVM that started this one closes it or is gone.
            }
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        } finally {
            // The metastore leaves non-daemon threads behind and has no stop: only an exit ends them.
            System.exit(status);
        }
    }

    private static String start(Settings settings) throws Exception {
        Configuration conf = MetastoreConf.newMetastoreConf(new Configuration(settings.hadoop()));
        conf.set("javax.jdo.option.ConnectionURL", settings.jdbcUrl());
        conf.set("javax.jdo.option.ConnectionDriverName", "org.postgresql.Driver");
        conf.set("javax.jdo.option.ConnectionUserName", settings.user());
        conf.set("javax.jdo.option.ConnectionPassword", settings.password());
        // HMS 4 refuses EXTERNAL tables under its managed root: the two stay apart.
        conf.set("metastore.warehouse.dir", settings.warehouse() + "/managed");
        conf.set("metastore.warehouse.external.dir", settings.warehouse() + "/external");
        conf.setBoolean("metastore.schema.verification", true);
        conf.setBoolean("metastore.compactor.initiator.on", false);
        conf.setBoolean("metastore.compactor.cleaner.on", false);
        conf.setBoolean("metastore.housekeeping.threads.on", false);
        conf.setBoolean("metastore.metrics.enabled", false);
        conf.setInt("metastore.server.min.threads", 4);
        // The metastore opens several pools (object store, transactions, their mutexes), 10 connections each by
        // default: on a PostgreSQL the whole machine's tests share, that alone can exhaust max_connections.
        conf.setInt("datanucleus.connectionPool.maxPoolSize", 2);
        // By default a failing call is retried 10 times, 2 s apart, in the server: a refusal must come at once.
        conf.setInt("hive.hmshandler.retry.attempts", 1);
        conf.set("metastore.thrift.bind.host", "127.0.0.1");

        if (!Files.isDirectory(settings.scripts().resolve("scripts/metastore/upgrade/postgres"))) {
            throw new IllegalStateException("no metastore schema scripts under " + settings.scripts()
                    + " (Maven unpacks them from hive-standalone-metastore-server's binary distribution)");
        }
        // A database that holds the schema already (the demo's, run again) keeps it: schema verification checks it.
        if (!hasSchema(settings)) {
            int rc = quietly(() -> new MetastoreSchemaTool().run(settings.scripts().toString(), new String[] {
                    "-initSchema", "-dbType", "postgres", "-userName", settings.user(), "-passWord",
                    settings.password(), "-url", settings.jdbcUrl(), "-driver", "org.postgresql.Driver"}, null, conf));
            if (rc != 0) {
                throw new IllegalStateException("schematool -initSchema exited " + rc);
            }
        }

        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Thread server = new Thread(() -> {
            try {
                HiveMetaStore.startMetaStore(port, HadoopThriftAuthBridge.getBridge(), conf);
            } catch (Throwable e) {
                e.printStackTrace();
            }
        }, "hive-metastore");
        server.setDaemon(true);
        server.start();
        awaitListening(port, server);
        return "thrift://127.0.0.1:" + port;
    }

    /** Whether schematool's {@code VERSION} table is there (PostgreSQL folds nothing: Hive quotes its names). */
    private static boolean hasSchema(Settings settings) throws SQLException {
        try (Connection c = DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
             PreparedStatement s = c.prepareStatement(
                     "SELECT count(*) FROM information_schema.tables"
                             + " WHERE table_schema = current_schema() AND table_name = 'VERSION'");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    /**
     * Until the server accepts a connection, for as long as its thread lives: the JVM that started this one sets the
     * limit (a start takes seconds on an idle machine, more than a minute on a busy one) and ends it past that.
     */
    private static void awaitListening(int port, Thread server) throws InterruptedException {
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (!server.isAlive()) {
                    throw new IllegalStateException("the metastore thread ended before listening on " + port);
                }
                Thread.sleep(100);
            }
        }
    }

    private interface Step {
        int run() throws Exception;
    }

    /** schematool runs sqlline, which echoes the whole schema script (thousands of lines) to stdout. */
    private static int quietly(Step step) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(sink);
        System.setErr(sink);
        try {
            return step.run();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
