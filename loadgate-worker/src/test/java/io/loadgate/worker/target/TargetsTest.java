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
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

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
