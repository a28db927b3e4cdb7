package io.loadgate.worker.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.source.jdbc.MariaDbSnapshotSource;
import io.loadgate.worker.source.jdbc.OracleSql;
import io.loadgate.worker.source.jdbc.PostgresSnapshotSource;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourcesTest {
    @Test
    void picksTheSourceByUrl() {
        assertThat(Sources.forJob(job("jdbc:postgresql://db:5432/x"), Map.of())).isInstanceOf(PostgresSnapshotSource.class);
        assertThat(Sources.forJob(job("jdbc:mariadb://db:3306/x"), Map.of())).isInstanceOf(MariaDbSnapshotSource.class);
        assertThat(Sources.forJob(job("jdbc:mysql://db:3306/x"), Map.of())).isInstanceOf(MariaDbSnapshotSource.class);
        assertThatThrownBy(() -> Sources.forJob(job("jdbc:oracle:thin:scott/tiger@//db:1521/ORCL"), Map.of()))
                .isInstanceOf(SourceException.class)
                .hasMessage("Oracle sources are not supported yet; only their SQL is generated (OracleSql)");
        assertThatThrownBy(() -> Sources.forJob(job("jdbc:sqlserver://db;password=secret"), Map.of()))
                .isInstanceOf(SourceException.class)
                .hasMessage("source.jdbc_url names no supported database (PostgreSQL, MariaDB, MySQL): jdbc:sqlserver://db;password=***");
    }

    private static JobSpec job(String url) {
        return new JobSpec("JOB", new SourceSpec(url, null, null, "t", null, null, "id", null, null, null),
                new TargetSpec("lake.t", "day", null), new StagingSpec(URI.create("file:/tmp/stage"), null, null), null, null, null);
    }
}
