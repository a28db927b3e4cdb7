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
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.security.HadoopThriftAuthBridge;
import org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool;

/**
 * The test metastore's own JVM ({@link HiveMetastoreFixture} starts it): a Hive Metastore 4.0.1 serving Thrift on a
 * free loopback port, its schema made by schematool on a test PostgreSQL database ({@link TestDatabases}), and an
 * HDFS minicluster (one name node, one data node). Its own JVM because the metastore server links Jetty 9 and the
 * ledger Jetty 12: no one class path holds both.
 *
 * <p>Arguments: the file to write {@code <hdfs uri>\n<metastore uri>\n} to once both serve, and a scratch directory.
 * It lives until its standard input ends, which is when the test JVM that started it ends or closes it.
 */
public final class HiveMetastoreProcess {
    private HiveMetastoreProcess() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            Path ready = Path.of(args[0]);
            Path base = Path.of(args[1]);
            String[] uris = start(base);
            Path written = Files.writeString(base.resolve("ready.tmp"), uris[0] + "\n" + uris[1] + "\n");
            Files.move(written, ready, StandardCopyOption.ATOMIC_MOVE);
            System.out.println(Instant.now() + " serving " + uris[1] + " with HDFS at " + uris[0]);
            while (System.in.read() != -1) {
                // Nothing is sent; the read returns -1 when the test JVM is gone.
            }
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        } finally {
            // The metastore leaves non-daemon threads behind and has no stop: only an exit ends them.
            System.exit(status);
        }
    }

    private static String[] start(Path base) throws Exception {
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
        return new String[] {nameNode, "thrift://127.0.0.1:" + port};
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
