package org.apache.hadoop.hdfs.protocol;

import java.io.IOException;

/**
 * HDFS's snapshot exception, as Hadoop 3.4.1 declares it (its constructors), for the one reason Loadgate needs it:
 * Hive's metastore {@code FileUtils} names it, so that class, and with it {@code Warehouse.makePartName} (every
 * Hive publish) and the metastore server's {@code createDatabase}, fail with {@code NoClassDefFoundError} without it.
 * The shaded Hadoop client Loadgate uses leaves out the HDFS server classes it lives in; the whole HDFS
 * ({@code hadoop-client-minicluster}, which the tests have) is 40 MB for one class. The distribution's JVMs (this one
 * and the Hive demo's metastore JVM, which runs on its class path) get it from here.
 */
public class SnapshotException extends IOException {
    private static final long serialVersionUID = 1L;

    public SnapshotException(String message) {
        super(message);
    }

    public SnapshotException(Throwable cause) {
        super(cause);
    }

    public SnapshotException(String message, Throwable cause) {
        super(message, cause);
    }
}
