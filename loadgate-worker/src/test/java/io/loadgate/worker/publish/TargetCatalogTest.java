package io.loadgate.worker.publish;

import static io.loadgate.worker.publish.StagedFiles.ORDERS;
import static io.loadgate.worker.publish.StagedFiles.ORDERS_TABLE;
import static io.loadgate.worker.publish.StagedFiles.orders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.Lakehouses;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetCatalogTest {
    @TempDir
    Path warehouse;
    @TempDir
    Path staging;

    @Test
    void fourWorkersCreatingTheTableAtOnceOnAFreshCatalogAllGetTheOneTable() throws Exception {
        CatalogConfig config = Lakehouses.jdbcCatalog(warehouse);
        int workers = 4;
        CyclicBarrier start = new CyclicBarrier(workers);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<String> tableUuids = new ArrayList<>();
        try {
            List<Future<String>> created = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                created.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    // Opening races too: on a fresh database every worker sets up the catalog's own tables.
                    try (TargetCatalog catalog = TargetCatalog.open(config)) {
                        return catalog.createIfAbsent(ORDERS_TABLE).uuid().toString();
                    }
                }));
            }
            for (Future<String> uuid : created) {
                tableUuids.add(uuid.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(tableUuids).as("table uuid seen by each worker").hasSize(workers).containsOnly(tableUuids.get(0));
        try (TargetCatalog catalog = TargetCatalog.open(config)) {
            assertThat(catalog.catalog().listTables(Namespace.of("lake"))).containsExactly(ORDERS_TABLE.identifier());
            Table table = catalog.loadTable(ORDERS_TABLE.identifier());
            assertThat(table.spec()).isEqualTo(PartitionSpec.builderFor(table.schema()).identity("order_date").build());
            assertThat(table.schema().asStruct()).isEqualTo(ORDERS.asStruct());
        }
    }

    @Test
    void anExistingTablePartitionedOtherwiseIsAMismatch() {
        try (TargetCatalog catalog = TargetCatalog.open(CatalogConfig.hadoop(warehouse))) {
            catalog.catalog().createTable(ORDERS_TABLE.identifier(), ORDERS, PartitionSpec.unpartitioned());

            assertThatThrownBy(() -> catalog.createIfAbsent(ORDERS_TABLE))
                    .isInstanceOf(TargetMismatchException.class)
                    .hasMessageContaining("not by identity on order_date alone");
        }
    }

    @Test
    void aHadoopCatalogOnTheWarehouseDirectoryTakesAPublish() {
        try (TargetCatalog catalog = TargetCatalog.open(CatalogConfig.hadoop(warehouse))) {
            var day = LocalDate.of(2026, 11, 29);
            var records = orders(day, 1, 50);
            PublishRequest request = new PublishRequest("run-1", "orders-daily", day.toString(), UUID.randomUUID(),
                    Fences.next(), ORDERS_TABLE, List.of(StagedFiles.write(staging, records)));

            PublishOutcome outcome = new IcebergPublisher(catalog).publish(request);

            assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(PublishOutcome.Status.PUBLISHED);
            Table table = catalog.loadTable(ORDERS_TABLE.identifier());
            assertThat(table.location()).startsWith(warehouse.toUri().getPath().replaceAll("/$", ""));
            assertThat(IcebergPublisherTest.rows(table)).containsExactlyInAnyOrderElementsOf(records);
        }
    }

    @Test
    void aBusinessKeyColumnMustBeInTheSchemaAndPrimitive() {
        Schema nested = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "address", Types.StructType.of(
                        Types.NestedField.optional(3, "city", Types.StringType.get()))));

        assertThatThrownBy(() -> new TargetTable(ORDERS_TABLE.identifier(), ORDERS, "day"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("business-key column day is not in the schema");
        assertThatThrownBy(() -> new TargetTable(ORDERS_TABLE.identifier(), nested, "address"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a primitive type");
        assertThatThrownBy(() -> ORDERS_TABLE.businessKeyFilter("yesterday"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("business key 'yesterday' is not a valid date for column order_date");
    }
}
