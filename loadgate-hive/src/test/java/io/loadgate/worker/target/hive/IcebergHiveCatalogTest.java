package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.Targets;
import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.StagedRuns;
import java.net.URI;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import io.loadgate.worker.job.Compression;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import org.junit.jupiter.api.Test;

/**
 * Iceberg tables in the Hive Metastore ({@code catalog: {type: hive, uri: thrift://...}}), staged and stored on HDFS:
 * a load, a replace, a probe, through the same Target seam as every Iceberg catalog.
 */
class IcebergHiveCatalogTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 2);

    @Test
    void loadsReplacesAndProbesAnIcebergTableInTheMetastore() throws Exception {
        HiveMetastoreFixture fixture = HiveMetastoreFixture.shared();
        String warehouse = fixture.hdfsUri() + "/iceberg";
        JobSpec job = JobSpecLoader.parse(Path.of("job.yaml"), """
                job_key: ICEBERG_HIVE
                source: {jdbc_url: "jdbc:postgresql://127.0.0.1:5432/unused", query: "SELECT 1", split_column: id}
                target:
                  table: lake.orders
                  business_key_column: order_date
                  catalog: {type: hive, uri: "%s", warehouse: "%s"}
                staging: {root: "%s/stage"}
                """.formatted(fixture.metastoreUri, warehouse, fixture.hdfsUri()));
        Target target;
        try (TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), Path.of("/tmp/none"))) {
            target = new Targets(catalogs, Map.of(), fixture.hadoop).forJob(job);

            Publication load = publication(fixture, 0, 300);
            PublishOutcome loaded = target.publish(load);
            Publication replace = publication(fixture, 1_000, 200);
            PublishOutcome replaced = target.publish(replace);

            assertThat(loaded.status()).as(loaded.message()).isEqualTo(PublishOutcome.Status.PUBLISHED);
            assertThat(replaced.status()).as(replaced.message()).isEqualTo(PublishOutcome.Status.PUBLISHED);
            assertThat(target.reading(DAY.toString(), io.loadgate.worker.job.ValidationSpec.COUNT_ONLY,
                    () -> StagedRuns.ORDERS).get().get("COUNT")).as("the replace's rows only").isEqualTo("200");
            ProbeResult probe = target.probe(replace.runId(), replace.publishToken());
            assertThat(probe.status()).as(probe.evidence()).isEqualTo(ProbeResult.Status.PUBLISHED);
            assertThat(target.probe(load.runId(), UUID.randomUUID()).status()).isEqualTo(ProbeResult.Status.NOT_FOUND);
        }
        org.apache.hadoop.conf.Configuration conf = MetastoreConf.newMetastoreConf(fixture.hadoop);
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, fixture.metastoreUri);
        try (IMetaStoreClient client = new HiveMetaStoreClient(conf)) {
            Table table = client.getTable("lake", "orders");
            assertThat(table.getParameters()).as("visible to Hive, Spark and Trino as an Iceberg table")
                    .containsEntry("table_type", "ICEBERG").containsKey("metadata_location");
        }
    }

    private static Publication publication(HiveMetastoreFixture fixture, long firstId, int rows) {
        String runId = UUID.randomUUID().toString();
        URI directory = URI.create(fixture.hdfsUri() + "/stage/iceberg-hive/run_id=" + runId);
        List<StagedFile> files = new ChunkWriter(fixture.hadoop, directory, StagedRuns.ORDERS,
                new StagingSpec(directory, 1_000, Compression.ZSTD))
                .writePartition(new ChunkNaming("0000", 1, UUID.randomUUID()),
                        StagedRuns.orders(DAY, firstId, rows).iterator())
                .stream().map(c -> new StagedFile(c.path().toString(), c.recordCount(), c.byteCount())).toList();
        return new Publication(runId, DAY.toString(), UUID.randomUUID(), Fences.next(), files, () -> StagedRuns.ORDERS);
    }
}
