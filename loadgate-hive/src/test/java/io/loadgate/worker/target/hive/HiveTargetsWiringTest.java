package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.Targets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
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

    /**
     * The file source's derived day and hour columns have the names dt_hr's partition columns have, and their
     * meaning: they stand for them. A JDBC source's own dt column might not hold the key's day: refused, before any
     * metastore call.
     */
    @Test
    void theFileSourcesDerivedDtAndHrStandForThePartitionColumnsAnotherSourcesDtIsRefused() {
        JobSpec files = JobSpecLoader.parse(Path.of("job.yaml"), """
                job_key: EVENTS
                source:
                  files: {root: "file:///tmp/drops", format: ndjson, group_by: hour, columns: [{name: id, type: bigint}]}
                target:
                  table: loader.events
                  business_key_column: load_key
                  hive: {metastore_uri: "thrift://hms:9083", partitioning: dt_hr}
                staging: {root: "file:///tmp/stage"}
                """);
        JobSpec jdbc = JobSpecLoader.parse(Path.of("job.yaml"), """
                job_key: EVENTS
                source: {jdbc_url: "jdbc:postgresql://127.0.0.1:5432/unused", query: "SELECT 1", split_column: id}
                target:
                  table: loader.events
                  business_key_column: event_hour
                  hive: {metastore_uri: "thrift://hms:9083", partitioning: dt_hr}
                staging: {root: "file:///tmp/stage"}
                """);
        assertThat(HiveTarget.keyDerived(files)).containsExactlyInAnyOrder("dt", "hr");
        assertThat(HiveTarget.keyDerived(jdbc)).isEmpty();
        Schema staged = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "dt", Types.DateType.get()),
                Types.NestedField.optional(3, "hr", Types.IntegerType.get()));
        MetastoreConnector unreachable = () -> {
            throw new MetaException("no metastore here");
        };

        assertThatThrownBy(() -> new HiveTarget("EVENTS", jdbc.target(), unreachable, new Configuration(),
                HiveTarget.keyDerived(jdbc)).setUp(staged)).isInstanceOf(TargetMismatchException.class)
                .hasMessageContaining("staged column dt has the name of a Hive partition column");
        assertThatThrownBy(() -> new HiveTarget("EVENTS", files.target(), unreachable, new Configuration(),
                HiveTarget.keyDerived(files)).setUp(staged)).as("past the column check, at the metastore")
                .hasMessageContaining("no metastore here");
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
