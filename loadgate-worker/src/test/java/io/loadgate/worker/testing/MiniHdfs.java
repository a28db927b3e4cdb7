package io.loadgate.worker.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * An in-process HDFS with one data node. Starting one takes many seconds, so test classes share one per JVM
 * ({@link #shared}); each test writes under paths of its own.
 */
public final class MiniHdfs {
    private static MiniHdfs shared;

    private final MiniDFSCluster cluster;
    private final Configuration conf;

    private MiniHdfs(MiniDFSCluster cluster, Configuration conf) {
        this.cluster = cluster;
        this.conf = conf;
    }

    /** The JVM's cluster, started on first use and stopped when the JVM exits. */
    public static synchronized MiniHdfs shared() throws IOException {
        if (shared == null) {
            Path base = Files.createTempDirectory("loadgate-minihdfs");
            shared = start(base);
            MiniHdfs cluster = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> cluster.cluster.shutdown(true)));
        }
        return shared;
    }

    private static MiniHdfs start(Path base) throws IOException {
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
        cluster.waitActive();
        return new MiniHdfs(cluster, conf);
    }

    /** {@code hdfs://host:port}, the name node, for URIs that need no site files. */
    public URI uri() {
        return cluster.getURI();
    }

    public Configuration conf() {
        return conf;
    }
}
