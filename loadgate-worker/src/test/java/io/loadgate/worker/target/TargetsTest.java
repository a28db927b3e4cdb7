package io.loadgate.worker.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.job.WarehouseSpec;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.testing.Fences;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetsTest {
    private final Targets targets = new Targets(new TargetCatalogs(Optional.empty(), Path.of("/tmp/none")), Map.of(),
            new Configuration());

    @Test
    void picksTheTargetOnceByTheJobsTargetSpec() {
        Target warehouse = targets.forJob(job(new TargetSpec("dw.sales", "day", null,
                new WarehouseSpec("jdbc:postgresql://db:5432/dw", "loader", null))));
        Target iceberg = targets.forJob(job(new TargetSpec("lake.sales", "day", null)));

        assertThat(warehouse).as("a target with a database is a warehouse table").isInstanceOf(WarehouseTarget.class);
        assertThat(warehouse.table()).isEqualTo("dw.sales");
        assertThat(iceberg).as("any other target is an Iceberg table").isInstanceOf(IcebergTarget.class);
        assertThat(iceberg.table()).isEqualTo("lake.sales");
        assertThat(warehouse.referencedFiles()).as("a warehouse copies rows: it references no staged file")
                .contains(java.util.Set.of());
    }

    @Test
    void opensNothingUntilUsedAndThenSaysWhyItCannot() {
        Target iceberg = targets.forJob(job(new TargetSpec("lake.sales", "day", null)));

        assertThatThrownBy(iceberg::referencedFiles).isInstanceOf(TargetException.class)
                .hasMessageStartingWith("cannot open the catalog of lake.sales: job JOB names no target.catalog");
        assertThatThrownBy(() -> iceberg.probe("run-1", java.util.UUID.randomUUID()))
                .isInstanceOf(JobSpecException.class);
    }

    /**
     * Issue 9: a publish that cannot start (here a business key its date column cannot hold) is FAILED_PUBLISH at
     * once; it used to throw after the claim and leave the run PUBLISHING until publish_stale.
     */
    @Test
    void aPublishThatCannotStartIsFailedNotThrown(@TempDir Path lake) {
        Schema columns = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "day", Types.DateType.get()));
        Publication badKey = new Publication("run-1", "2026-13-45", UUID.randomUUID(), Fences.next(),
                List.of(new StagedFile(lake.resolve("never-read.parquet").toUri().toString(), 1, 1)), () -> columns);
        Target iceberg = targets.forJob(job(new TargetSpec("lake.sales", "day",
                Map.of("type", "hadoop", "warehouse", lake.toString()))));
        Target warehouse = targets.forJob(job(new TargetSpec("dw.sales", "day", null,
                new WarehouseSpec("jdbc:postgresql://127.0.0.1:1/dw", "loader", null))));

        for (Target target : List.of(iceberg, warehouse)) {
            PublishOutcome outcome = target.publish(badKey);
            assertThat(outcome.status()).as("%s: %s", target.table(), outcome.message())
                    .isEqualTo(PublishOutcome.Status.FAILED_PUBLISH);
            assertThat(outcome.errorCode()).isEqualTo(PublishOutcome.ErrorCode.NOT_COMMITTED);
            assertThat(outcome.message()).contains("business key '2026-13-45' is not a valid date");
        }
    }

    @Test
    void onlyAnIcebergTargetWithoutItsOwnCatalogNeedsTheDefaultOne() {
        assertThat(Targets.needsDefaultCatalog(job(new TargetSpec("lake.sales", "day", null)))).isTrue();
        assertThat(Targets.needsDefaultCatalog(job(new TargetSpec("lake.sales", "day",
                Map.of("type", "hadoop", "warehouse", "/tmp/w"))))).isFalse();
        assertThat(Targets.needsDefaultCatalog(job(new TargetSpec("dw.sales", "day", null,
                new WarehouseSpec("jdbc:postgresql://db:5432/dw", "loader", null))))).isFalse();
    }

    private static JobSpec job(TargetSpec target) {
        return new JobSpec("JOB", new SourceSpec("jdbc:postgresql://db:5432/x", null, null, "t", null, null, "id", null,
                null, null), target, new StagingSpec(URI.create("file:/tmp/stage"), null, null), null, null, null);
    }
}
