package io.loadgate.worker.target.hive;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The test metastore's own JVM ({@link HiveMetastoreFixture} starts it): {@link HiveMetastoreServer} over an HDFS
 * minicluster (one name node, one data node) started here first, its schema on a test PostgreSQL database
 * ({@link TestDatabases}, dropped when this JVM ends).
 *
 * <p>Arguments: the ready file, a scratch directory, the schema scripts' home.
 */
public final class HiveMetastoreProcess {
    private HiveMetastoreProcess() {
    }

    public static void main(String[] args) {
        HiveMetastoreServer.serve(Path.of(args[0]), () -> {
            Configuration dfsConf = new Configuration();
            dfsConf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Path.of(args[1]).resolve("dfs").toString());
            MiniDFSCluster hdfs = new MiniDFSCluster.Builder(dfsConf).numDataNodes(1).build();
            hdfs.waitActive();
            Runtime.getRuntime().addShutdownHook(new Thread(hdfs::shutdown, "minidfs-shutdown"));
            String nameNode = hdfs.getURI().toString();
            Configuration hadoop = new Configuration(dfsConf);
            hadoop.set("fs.defaultFS", nameNode);
            TestDatabase database = TestDatabases.create();
            return new HiveMetastoreServer.Settings(Path.of(args[2]), database.jdbcUrl(), database.user(),
                    database.password(), nameNode + "/hive", hadoop);
        });
    }
}
