package io.loadgate.worker.source;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.source.jdbc.IdleConnections;
import io.loadgate.worker.source.jdbc.MariaDbSnapshotSource;
import io.loadgate.worker.source.jdbc.OracleSql;
import io.loadgate.worker.source.jdbc.PostgresSnapshotSource;
import io.loadgate.worker.source.jdbc.SourceConnections;
import io.loadgate.worker.source.files.FileSource;
import java.time.Clock;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/** Picks the {@link Source} for a job: its file drops, or a database by its JDBC URL. */
public final class Sources {
    /** MariaDB reader connections are opened up front; more than this many buys little on one worker. */
    private static final int MAX_MARIADB_READERS = 8;

    private Sources() {
    }

    /** {@code environment} supplies the password variable the spec names; pass {@code System.getenv()}. */
    public static Source forJob(JobSpec job, Map<String, String> environment) {
        return forJob(job, environment, IdleConnections.none());
    }

    /** A source whose plans and partitions run on connections kept in {@code idle} (PostgreSQL's), for a process. */
    public static Source forJob(JobSpec job, Map<String, String> environment, IdleConnections idle) {
        if (job.source().isFiles()) {
            // The root's URI names its file system (an hdfs:// one carries the name node); no site files needed.
            return new FileSource(job.source().files(), job.transform().mapper(), new Configuration(), Clock.systemUTC());
        }
        String url = job.source().jdbcUrl();
        if (url.startsWith("jdbc:postgresql:")) {
            return new PostgresSnapshotSource(job.source(), job.validation(), environment, idle);
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            // One connection per partition (the NULL one included) up to the cap, so partitions rarely wait.
            int readers = Math.min(job.source().partitions() + 1, MAX_MARIADB_READERS);
            return new MariaDbSnapshotSource(job.source(), job.validation(), environment, readers);
        }
        if (url.startsWith("jdbc:oracle:")) {
            // No URL in the message: an Oracle URL may carry user/password before the '@'.
            throw new SourceException("Oracle sources are not supported yet; only their SQL is generated (OracleSql)");
        }
        throw new SourceException("source.jdbc_url names no supported database (PostgreSQL, MariaDB, MySQL): "
                + SourceConnections.masked(url));
    }
}
