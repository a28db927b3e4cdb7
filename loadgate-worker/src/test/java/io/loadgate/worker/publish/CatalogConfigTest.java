package io.loadgate.worker.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogConfigTest {
    private static final Path HOME_WAREHOUSE = Path.of("/var/loadgate/warehouse");

    @Test
    void pinsTheDefaults() {
        CatalogConfig config = CatalogConfig.fromProperties(
                Map.of("uri", "jdbc:postgresql://127.0.0.1:5432/lakehouse", "jdbc.user", "loadgate"), HOME_WAREHOUSE);

        assertThat(config.type()).isEqualTo(CatalogConfig.Type.JDBC);
        assertThat(config.name()).isEqualTo("loadgate");
        assertThat(config.warehouse()).isEqualTo("/var/loadgate/warehouse");
        assertThat(config.catalogProperties()).isEqualTo(Map.of(
                "catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog",
                "uri", "jdbc:postgresql://127.0.0.1:5432/lakehouse",
                "warehouse", "/var/loadgate/warehouse",
                "jdbc.user", "loadgate",
                "jdbc.schema-version", "V1",
                "io-impl", LocalFileIO.class.getName()));
    }

    @Test
    void aJdbcCatalogUsesTheLocalFileIoOnlyForALocalWarehouseAndWhenNoneIsNamed() {
        String uri = "jdbc:postgresql://127.0.0.1:5432/lakehouse";
        assertThat(CatalogConfig.fromProperties(Map.of("uri", uri, "warehouse", "file:/data/lake"), HOME_WAREHOUSE)
                .catalogProperties()).containsEntry("io-impl", LocalFileIO.class.getName());
        assertThat(CatalogConfig.fromProperties(Map.of("uri", uri, "warehouse", "hdfs://nn:8020/lake"), HOME_WAREHOUSE)
                .catalogProperties()).doesNotContainKey("io-impl");
        assertThat(CatalogConfig.fromProperties(Map.of("uri", uri, "io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"),
                HOME_WAREHOUSE).catalogProperties()).containsEntry("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO");
    }

    @Test
    void readsHadoopAndRestCatalogs() {
        CatalogConfig hadoop = CatalogConfig.fromProperties(Map.of("type", "hadoop"), HOME_WAREHOUSE);
        CatalogConfig rest = CatalogConfig.fromProperties(
                Map.of("type", "REST", "uri", "https://catalog.example:8181", "credential", "id:secret"),
                HOME_WAREHOUSE);

        assertThat(hadoop.catalogProperties()).isEqualTo(Map.of(
                "catalog-impl", "org.apache.iceberg.hadoop.HadoopCatalog", "warehouse", "/var/loadgate/warehouse"));
        assertThat(rest.warehouse()).as("a REST server chooses its own warehouse").isNull();
        assertThat(rest.catalogProperties()).isEqualTo(Map.of("catalog-impl", "org.apache.iceberg.rest.RESTCatalog",
                "uri", "https://catalog.example:8181", "credential", "id:secret"));
    }

    @Test
    void failsFastNamingTheKey() {
        assertThatThrownBy(() -> CatalogConfig.fromProperties(Map.of("type", "glue"), HOME_WAREHOUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("type must be one of jdbc, hadoop, rest, hive; got: glue");
        assertThatThrownBy(() -> CatalogConfig.fromProperties(Map.of("type", "hive", "uri", "http://hms:9083"),
                HOME_WAREHOUSE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uri must be a metastore URI (thrift://...), got: http://hms:9083");
        assertThatThrownBy(() -> CatalogConfig.fromProperties(Map.of(), HOME_WAREHOUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uri is not set: a JDBC catalog needs a JDBC URL");
        assertThatThrownBy(() -> CatalogConfig.fromProperties(Map.of("uri", "postgresql://x/y"), HOME_WAREHOUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uri must be a JDBC URL (jdbc:...), got: postgresql://x/y");
        assertThatThrownBy(() -> CatalogConfig.fromProperties(Map.of("type", "rest"), HOME_WAREHOUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uri is not set: a REST catalog needs the service URL");
        assertThatThrownBy(() -> new CatalogConfig(CatalogConfig.Type.HADOOP, "loadgate", null, "/w",
                Map.of("catalog-impl", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("catalog-impl must be given as its own setting, not as an extra property");
    }

    @Test
    void masksSecretsWhenShown() {
        CatalogConfig config = new CatalogConfig(CatalogConfig.Type.JDBC, "loadgate",
                "jdbc:postgresql://db/lakehouse?user=lg&password=hunter2", "/w",
                Map.of("jdbc.password", "hunter2", "jdbc.user", "lg"));

        assertThat(config.toString())
                .doesNotContain("hunter2")
                .contains("jdbc.password=****", "jdbc.user=lg", "password=****");
    }
}
