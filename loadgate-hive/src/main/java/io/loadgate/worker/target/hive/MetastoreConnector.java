package io.loadgate.worker.target.hive;

import io.loadgate.worker.job.HiveSpec;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;

/**
 * Opens a client of the job's metastore, one per target operation (the metastore client is not thread-safe). The
 * seam where tests inject a lost answer.
 */
@FunctionalInterface
interface MetastoreConnector {
    IMetaStoreClient open() throws MetaException;

    /**
     * A plain {@link HiveMetaStoreClient}, not the retrying proxy: a call that failed on the wire is never sent again
     * by the client, because the publisher must classify it (a swap sent twice would hide a lost answer).
     */
    static MetastoreConnector of(HiveSpec spec, Configuration hadoop) {
        Configuration conf = MetastoreConf.newMetastoreConf(new Configuration(hadoop));
        spec.properties().forEach(conf::set);
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, spec.metastoreUri());
        return () -> new HiveMetaStoreClient(conf);
    }
}
