package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.Targets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** {@code target.hive} in a job's YAML reaches the Hive target through the seam, without a metastore. */
class HiveTargetsWiringTest {
    @Test
    void aJobNamingHiveGetsTheHiveTargetFromTheSeam() {
        JobSpec job = JobSpecLoader.parse(Path.of("job.yaml"), """
                job_key: HOURLY
                source: {jdbc_url: "jdbc:postgresql://127.0.0.1:5432/unused", query: "SELECT 1", split_column: id}
                target:
                  table: loader.events
                  business_key_column: event_hour
                  hive:
                    metastore_uri: thrift://hms:9083
                    partitioning: year_month_day_hour
                    properties: {metastore.client.socket.timeout: 30s}
                staging: {root: "hdfs://nn:8020/stage"}
                """);
        Target target = new Targets(new TargetCatalogs(Optional.empty(), Path.of("/tmp/none")), Map.of(),
                new Configuration()).forJob(job);

        assertThat(target).isInstanceOf(HiveTarget.class);
        assertThat(target.table()).isEqualTo("loader.events");
        assertThat(job.target().hive().partitioning()).isEqualTo(HivePartitioning.YEAR_MONTH_DAY_HOUR);
        assertThat(Targets.needsDefaultCatalog(job)).as("a Hive table needs no Iceberg catalog").isFalse();
    }

    @Test
    void businessKeysBecomeHivePartitionValues() {
        assertThat(HivePartitioning.DT.values("2026-12-01")).containsExactly("2026-12-01");
        assertThat(HivePartitioning.DT_HR.values("2026-12-01T05:00:00")).containsExactly("2026-12-01", "05");
        assertThat(HivePartitioning.DT_HR.values("2026-11-30T14")).as("the file source's hour key")
                .containsExactly("2026-11-30", "14");
        assertThat(HivePartitioning.YEAR_MONTH_DAY_HOUR.values("2026-11-30T04"))
                .containsExactly("2026", "11", "30", "04");
        assertThat(HivePartitioning.YEAR_MONTH_DAY_HOUR.values("2026-12-01T05:00:00"))
                .containsExactly("2026", "12", "01", "05");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HivePartitioning.DT_HR.values("2026-12-01T05:30:00"))
                .hasMessage("an hour business key must be on the hour, got '2026-12-01T05:30:00'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HivePartitioning.DT.values("2026-12-01T05:00:00"))
                .hasMessage("target.hive.partitioning dt takes a date business key, got '2026-12-01T05:00:00'");
    }
}
