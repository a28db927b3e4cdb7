package io.loadgate.worker.target.hive;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.security.HadoopThriftAuthBridge;
import org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool;

/**
 * A Hive Metastore 4.0.1 serving Thrift on a free loopback port, its schema made by schematool on a test PostgreSQL
 * database (the machine's, or the embedded one: {@link TestDatabases}), and an in-process HDFS (one name node, one
 * data node) for the tables' data and the staging. Started once per test JVM on first use: the metastore has no
 * public stop and lives until the JVM exits; HDFS is shut down by a shutdown hook.
 */
final class HiveMetastoreFixture {
    private static HiveMetastoreFixture shared;

    final Configuration hadoop;
    final MiniDFSCluster hdfs;
    final String metastoreUri;
    final Duration startup;

    private HiveMetastoreFixture(Configuration hadoop, MiniDFSCluster hdfs, String metastoreUri, Duration startup) {
        this.hadoop = hadoop;
        this.hdfs = hdfs;
        this.metastoreUri = metastoreUri;
        this.startup = startup;
    }

    static synchronized HiveMetastoreFixture shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the test metastore: " + e, e);
            }
        }
        return shared;
    }

    /** {@code hdfs://localhost:port}: where the fixture's tables and staging live. */
    String hdfsUri() {
        return hdfs.getURI().toString();
    }

    private static HiveMetastoreFixture start() throws Exception {
        Instant started = Instant.now();
        Path base = Files.createTempDirectory("loadgate-hms");
        Configuration dfsConf = new Configuration();
        dfsConf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.resolve("dfs").toString());
        MiniDFSCluster hdfs = new MiniDFSCluster.Builder(dfsConf).numDataNodes(1).build();
        hdfs.waitActive();
        Runtime.getRuntime().addShutdownHook(new Thread(hdfs::shutdown, "minidfs-shutdown"));
        String nameNode = hdfs.getURI().toString();
        Configuration hadoop = new Configuration(dfsConf);
        hadoop.set("fs.defaultFS", nameNode);

        TestDatabase database = TestDatabases.create();
        Configuration conf = MetastoreConf.newMetastoreConf(new Configuration(hadoop));
        conf.set("javax.jdo.option.ConnectionURL", database.jdbcUrl());
        conf.set("javax.jdo.option.ConnectionDriverName", "org.postgresql.Driver");
        conf.set("javax.jdo.option.ConnectionUserName", database.user());
        conf.set("javax.jdo.option.ConnectionPassword", database.password());
        // HMS 4 refuses EXTERNAL tables under its managed root: the two stay apart.
        conf.set("metastore.warehouse.dir", nameNode + "/hive/managed");
        conf.set("metastore.warehouse.external.dir", nameNode + "/hive/external");
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

        String home = System.getProperty("loadgate.hms.home");
        if (home == null || !Files.isDirectory(Path.of(home, "scripts", "metastore", "upgrade", "postgres"))) {
            throw new IllegalStateException("no metastore schema scripts at " + home
                    + " (loadgate.hms.home; Maven unpacks them in generate-test-resources)");
        }
        int rc = quietly(() -> new MetastoreSchemaTool().run(home, new String[] {"-initSchema", "-dbType", "postgres",
                "-userName", database.user(), "-passWord", database.password(), "-url", database.jdbcUrl(),
                "-driver", "org.postgresql.Driver"}, null, conf));
        if (rc != 0) {
            throw new IllegalStateException("schematool -initSchema exited " + rc);
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
        return new HiveMetastoreFixture(hadoop, hdfs, "thrift://127.0.0.1:" + port,
                Duration.between(started, Instant.now()));
    }

    private static void awaitListening(int port, Thread server) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        while (Instant.now().isBefore(deadline)) {
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
        throw new IllegalStateException("the metastore did not listen on " + port + " within 60 s");
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
