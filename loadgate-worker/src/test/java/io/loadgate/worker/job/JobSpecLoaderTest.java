package io.loadgate.worker.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobSpecLoaderTest {
    private static final String VALID = """
            job_key: ORDERS_DAILY
            source:
              jdbc_url: jdbc:postgresql://127.0.0.1:5432/shop
              user: loader
              password_env: SHOP_PASSWORD
              table: public.orders
              columns: [id, amount, created_at]
              split_column: id
              partitions: 8
              filter: "business_day = CAST(:business_key AS date) AND region <> :business_key"
              fetch_size: 5000
            target:
              table: lake.orders
              business_key_column: business_day
            staging:
              root: hdfs://namenode:8020/data/loadgate/stage
              rows_per_chunk: 250000
              compression: snappy
            validation:
              sum: [amount]
              min: [created_at]
              max: [created_at]
              null_count: [amount]
              primary_key: [id]
            recovery:
              mode: REISSUE
            """;

    @TempDir
    Path dir;

    @Test
    void loadsEveryField() throws IOException {
        JobSpec spec = JobSpecLoader.load(write(VALID));

        assertThat(spec.jobKey()).isEqualTo("ORDERS_DAILY");
        SourceSpec source = spec.source();
        assertThat(source.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/shop");
        assertThat(source.user()).isEqualTo("loader");
        assertThat(source.table()).isEqualTo("public.orders");
        assertThat(source.query()).isNull();
        assertThat(source.columns()).containsExactly("id", "amount", "created_at");
        assertThat(source.splitColumn()).isEqualTo("id");
        assertThat(source.partitions()).isEqualTo(8);
        assertThat(source.fetchSize()).isEqualTo(5000);
        assertThat(source.filterSql()).isEqualTo("business_day = CAST(? AS date) AND region <> ?");
        assertThat(source.filterParameterCount()).isEqualTo(2);
        assertThat(spec.target()).isEqualTo(new TargetSpec("lake.orders", "business_day", null));
        assertThat(spec.staging()).isEqualTo(new StagingSpec(URI.create("hdfs://namenode:8020/data/loadgate/stage"), 250_000, Compression.SNAPPY));
        assertThat(spec.validation()).isEqualTo(new ValidationSpec(List.of("amount"), List.of("created_at"), List.of("created_at"),
                List.of("amount"), List.of("id")));
        assertThat(spec.recovery().mode()).isEqualTo(RecoveryMode.REISSUE);
    }

    @Test
    void pinsEveryDefault() throws IOException {
        JobSpec spec = JobSpecLoader.load(write("""
                job_key: MINIMAL
                source: {jdbc_url: "jdbc:postgresql://db/x", query: "SELECT * FROM t", split_column: id}
                target: {table: lake.t, business_key_column: day}
                staging: {root: /data/stage}
                """));

        assertThat(spec.source().columns()).as("all columns").isEmpty();
        assertThat(spec.source().partitions()).isEqualTo(4);
        assertThat(spec.source().fetchSize()).isEqualTo(10_000);
        assertThat(spec.source().metrics()).isEqualTo(SourceMetricsTiming.AUTO);
        assertThat(spec.source().filter()).isNull();
        assertThat(spec.source().filterParameterCount()).isZero();
        assertThat(spec.source().passwordEnv()).isNull();
        assertThat(spec.source().resolvePassword(Map.of())).as("no password variable, no password").isNull();
        assertThat(spec.staging().root()).as("a bare path is a file URI").isEqualTo(URI.create("file:/data/stage"));
        assertThat(spec.staging().rowsPerChunk()).isEqualTo(1_000_000);
        assertThat(spec.staging().compression()).isEqualTo(Compression.ZSTD);
        assertThat(spec.validation()).isEqualTo(ValidationSpec.COUNT_ONLY);
        assertThat(spec.recovery().mode()).as("no mode: the ledger's recovery.mode decides").isNull();
    }

    @Test
    void unknownKeyNamesFileLineAndKey() throws IOException {
        Path file = write(VALID.replace("  fetch_size: 5000", "  fetch_sise: 5000"));

        assertThatThrownBy(() -> JobSpecLoader.load(file))
                .isInstanceOf(JobSpecException.class)
                .hasMessageStartingWith(file + ":11:3: ")
                .hasMessageContaining("source.fetch_sise: unknown key 'fetch_sise'")
                .hasMessageContaining("fetch_size")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void wrongTypesNameFileLineAndKey() throws IOException {
        assertOneLine(VALID.replace("partitions: 8", "partitions: eight"), ":9:", "source.partitions: wrong type, expected integer");
        assertOneLine(VALID.replace("partitions: 8", "partitions: \"8\""), ":9:", "source.partitions:");
        assertOneLine(VALID.replace("sum: [amount]", "sum: amount"), ":20:", "validation.sum: wrong type, expected list");
        assertOneLine(VALID.replace("mode: REISSUE", "mode: SOMETIMES"), ":26:", "recovery.mode: 'SOMETIMES' is not a valid value, one of [FAIL, REISSUE]");
        assertOneLine(VALID.replace("user: loader", "user: [a, b]"), ":4:", "source.user: wrong type, expected string");
        assertOneLine(VALID.replace("  fetch_size: 5000", "  fetch_size: 5000\n  metrics: sometimes"), ":12:",
                "source.metrics: 'sometimes' is not a valid value, one of [AUTO, WHILE_PLANNING, DURING_EXTRACTION]");
    }

    @Test
    void sourceMetricsTakeTheirTiming() throws IOException {
        JobSpec spec = JobSpecLoader.load(write(VALID.replace("  fetch_size: 5000", "  fetch_size: 5000\n  metrics: during_extraction")));

        assertThat(spec.source().metrics()).isEqualTo(SourceMetricsTiming.DURING_EXTRACTION);
    }

    @Test
    void aCompressionLevelIsOptionalAndWithinItsCodecsLevels() throws IOException {
        String zstd = VALID.replace("compression: snappy", "compression: zstd\n  compression_level: 1");
        assertThat(JobSpecLoader.load(write(zstd)).staging().compressionLevel()).isEqualTo(1);
        assertThat(JobSpecLoader.load(write(VALID)).staging().compressionLevel()).as("the codec's default").isNull();

        assertOneLine(zstd.replace("compression_level: 1", "compression_level: 23"), ":",
                "staging.compression_level for zstd must be one of its levels (1 to 22), got 23");
        assertOneLine(VALID.replace("compression: snappy", "compression: snappy\n  compression_level: 3"), ":",
                "staging.compression_level for snappy must be one of its levels (none), got 3");
        assertOneLine(VALID.replace("compression: snappy", "compression: gzip\n  compression_level: 0"), ":",
                "staging.compression_level for gzip must be one of its levels (1 to 9), got 0");
    }

    @Test
    void invalidValuesNameTheKey() throws IOException {
        assertOneLine(VALID.replace("ORDERS_DAILY", "orders-daily"), ":", "job_key must match ^[A-Z0-9_]{1,200}$, got 'orders-daily'");
        assertOneLine(VALID.replace("  table: public.orders\n", ""), ":", "source: source needs exactly one of table and query");
        assertOneLine(VALID.replace("  table: public.orders\n", "  table: public.orders\n  query: SELECT 1\n"), ":",
                "source needs exactly one of table and query");
        assertOneLine(VALID.replace("split_column: id", "split_column: \"id; DROP TABLE x\""), ":",
                "source.split_column must be a plain column name");
        assertOneLine(VALID.replace("hdfs://namenode:8020/data/loadgate/stage", "s3://bucket/stage"), ":",
                "staging.root must be a file:// or hdfs:// URI, got 's3://bucket/stage'");
        assertOneLine(VALID.replace("partitions: 8", "partitions: 0"), ":", "source.partitions must be between 1 and 9999, got 0");
        assertOneLine(VALID.replace("  table: lake.orders\n", ""), ":", "target.table is required");
        assertOneLine(VALID.replace("staging:\n  root: hdfs://namenode:8020/data/loadgate/stage\n  rows_per_chunk: 250000\n  compression: snappy\n", ""),
                ":", "staging is required");
    }

    private static final String TRANSFORM = """
            transform:
              max_rejected_ratio: 0.001
              steps:
                - trim: [name, email]
                - null_if_blank: [note]
                - require: [customer_id]
                - range: {column: quantity, min: 1}
                - match: {column: email, pattern: '[^@]+@[^@]+'}
                - max_length: {column: note, length: 200}
                - hash: [email]
            """;

    @Test
    void readsTransformsInOrder() throws IOException {
        TransformSpec transform = JobSpecLoader.load(write(VALID + TRANSFORM)).transform();

        assertThat(transform.steps()).hasSize(7);
        assertThat(transform.steps().get(0).trim()).containsExactly("name", "email");
        assertThat(transform.steps().get(3).range()).isEqualTo(new TransformStep.Range("quantity", java.math.BigDecimal.ONE, null));
        assertThat(transform.steps().get(4).match().pattern()).isEqualTo("[^@]+@[^@]+");
        assertThat(transform.steps().get(6).hash()).containsExactly("email");
        assertThat(transform.allowedRejects(25_000)).as("0.1 %% of 25,000 rows").isEqualTo(25);
        assertThat(JobSpecLoader.load(write(VALID)).transform().allowedRejects(1_000_000))
                .as("no transforms, no rejects allowed").isZero();
    }

    @Test
    void aBadTransformNamesItsStep() throws IOException {
        assertOneLine(VALID + TRANSFORM.replace("- trim: [name, email]", "- trim: [name]\n      lower: [email]"), ":",
                "transform.steps[0]: a transform step names exactly one of trim, lower, upper, null_if_blank, hash, hmac,"
                        + " require, range, match, max_length, mapper; this one names [trim, lower]");
        assertOneLine(VALID + TRANSFORM.replace("- trim: [name, email]", "- squash: [name]"), ":30:7:",
                "transform.steps[0].squash: unknown key 'squash'; expected one of hash, hmac, lower");
        assertOneLine(VALID + TRANSFORM.replace("max_rejected_ratio: 0.001", "max_rejected_ratio: 2"), ":",
                "max_rejected_ratio must be between 0 and 1, got 2");
        assertOneLine(VALID + TRANSFORM.replace("max_rejected_ratio: 0.001", "max_rejected_ratio: 0.1\n  max_rejected: 3"),
                ":", "name one of max_rejected and max_rejected_ratio, not both");
        assertOneLine(VALID + TRANSFORM.replace("'[^@]+@[^@]+'", "'[unclosed'"), ":",
                "match.pattern is not a valid regular expression: Unclosed character class");
        assertOneLine(VALID + TRANSFORM.replace("{column: quantity, min: 1}", "{column: quantity}"), ":",
                "range needs min, max or both");
        assertOneLine(VALID + TRANSFORM.replace("- hash: [email]", "- hash: []"), ":", "hash names no column");
        assertOneLine(VALID + TRANSFORM.replace("- hash: [email]", "- hmac: {columns: [email], key_env: 'not a name'}"), ":",
                "hmac.key_env must name an environment variable, got 'not a name'");
        assertOneLine(VALID + TRANSFORM.replace("- hash: [email]", "- hmac: {key_env: PII_KEY}"), ":",
                "hmac.columns is required");
    }

    @Test
    void aWarehouseTargetIsAPostgresqlOrMariaDbTableNamedSchemaDotTable() throws IOException {
        String warehouse = VALID.replace("  business_key_column: business_day\n", """
                  business_key_column: business_day
                  database:
                    jdbc_url: "jdbc:postgresql://dw:5432/analytics"
                    user: loader
                    password_env: DW_PASSWORD
                """);

        TargetSpec target = JobSpecLoader.load(write(warehouse)).target();

        assertThat(target.isWarehouse()).isTrue();
        assertThat(target.database().resolvePassword(Map.of("DW_PASSWORD", "pw"))).isEqualTo("pw");
        assertThat(target.database().toString()).doesNotContain("pw");
        for (String url : List.of("jdbc:mariadb://dw:3306/analytics", "jdbc:mysql://dw/analytics")) {
            assertThat(JobSpecLoader.load(write(warehouse.replace("jdbc:postgresql://dw:5432/analytics", url)))
                    .target().database().jdbcUrl()).isEqualTo(url);
        }
        assertOneLine(warehouse.replace("jdbc:postgresql://dw:5432/analytics", "jdbc:sqlserver://dw;databaseName=a"), ":",
                "target.database.jdbc_url must be a PostgreSQL, MariaDB or MySQL URL (jdbc:postgresql:..., jdbc:mariadb:..."
                        + " or jdbc:mysql:...)");
        assertOneLine(warehouse.replace("  table: lake.orders", "  table: db.lake.orders"), ":",
                "target.table of a warehouse must be schema.table, got 'db.lake.orders'");
        assertOneLine(warehouse.replace("  database:", "  catalog: {type: hadoop}\n  database:"), ":",
                "target names a catalog and a database");
    }

    @Test
    void aHiveTargetPublishesByDirectoryUnlessItSaysInsertOverwriteThroughAHiveServer2() throws IOException {
        String hive = VALID.replace("  table: lake.orders", "  table: lake.orders\n  hive:\n"
                + "    metastore_uri: thrift://hms:9083\n");
        assertThat(JobSpecLoader.load(write(hive)).target().hive().publish()).isEqualTo(HivePublishMode.DIRECTORY);

        String insert = hive.replace("    metastore_uri: thrift://hms:9083\n", """
                    metastore_uri: thrift://hms:9083
                    publish: insert_overwrite
                    hiveserver2:
                      url: "jdbc:hive2://hs2:10000/lake;ssl=true;sslTrustStorePassword=tspw"
                      user: loader
                      password_env: HS2_PASSWORD
                      jdbc_driver_path: /opt/hive/jdbc/hive-jdbc-4.0.1-standalone.jar
                """);
        HiveSpec spec = JobSpecLoader.load(write(insert)).target().hive();

        assertThat(spec.publish()).isEqualTo(HivePublishMode.INSERT_OVERWRITE);
        assertThat(spec.hiveserver2().jdbcDriverPath()).isEqualTo("/opt/hive/jdbc/hive-jdbc-4.0.1-standalone.jar");
        assertThat(spec.hiveserver2().resolvePassword(Map.of("HS2_PASSWORD", "s3cret"))).isEqualTo("s3cret");
        assertThat(spec.hiveserver2().toString()).as("no session settings, which may hold a password")
                .contains("jdbc:hive2://hs2:10000/lake;...").doesNotContain("tspw");
        assertThatThrownBy(() -> spec.hiveserver2().resolvePassword(Map.of())).isInstanceOf(JobSpecException.class)
                .hasMessage("target.hive.hiveserver2.password_env names HS2_PASSWORD, which is not set in the environment");
        assertOneLine(hive.replace("    metastore_uri: thrift://hms:9083\n",
                        "    metastore_uri: thrift://hms:9083\n    publish: insert_overwrite\n"), ":",
                "target.hive.publish insert_overwrite needs target.hive.hiveserver2");
        assertOneLine(insert.replace("publish: insert_overwrite", "publish: directory"), ":",
                "target.hive.hiveserver2 is used only by target.hive.publish insert_overwrite");
        assertOneLine(insert.replace("jdbc:hive2://hs2", "jdbc:postgresql://hs2"), ":",
                "target.hive.hiveserver2.url must be jdbc:hive2://host:port/database, got 'jdbc:postgresql://hs2:10000/lake;...'");
        assertOneLine(insert.replace("publish: insert_overwrite", "publish: merge"), ":", "publish");
    }

    @Test
    void duplicateKeyAndBrokenYamlFail() throws IOException {
        assertOneLine(VALID.replace("  user: loader\n", "  user: loader\n  user: other\n"), ":5:", "Duplicate field 'user'");
        assertOneLine(VALID.replace("job_key: ORDERS_DAILY", "job_key: 'ORDERS_DAILY"), ":", "not valid YAML");
    }

    @Test
    void emptyOrMissingFile() throws IOException {
        Path empty = write("");
        assertThatThrownBy(() -> JobSpecLoader.load(empty)).isInstanceOf(JobSpecException.class).hasMessage(empty + ": the job spec is empty");
        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> JobSpecLoader.load(missing)).isInstanceOf(JobSpecException.class).hasMessage(missing + ": no such file");
    }

    @Test
    void unsetPasswordVariableFailsAtResolveTime() throws IOException {
        JobSpec spec = JobSpecLoader.load(write(VALID));

        assertThat(spec.source().resolvePassword(Map.of("SHOP_PASSWORD", "s3cret"))).isEqualTo("s3cret");
        assertThatThrownBy(() -> spec.source().resolvePassword(Map.of()))
                .isInstanceOf(JobSpecException.class)
                .hasMessage("source.password_env names SHOP_PASSWORD, which is not set in the environment");
    }

    @Test
    void castsAreNotTakenForTheBusinessKey() {
        SourceSpec source = new SourceSpec("jdbc:postgresql://db/x", null, null, "t", null, null, "id", null,
                "d = :business_key::date AND x::text <> ''", null);

        assertThat(source.filterSql()).isEqualTo("d = ?::date AND x::text <> ''");
        assertThat(source.filterParameterCount()).isEqualTo(1);
    }

    private void assertOneLine(String yaml, String lineFragment, String messageFragment) throws IOException {
        Path file = write(yaml);
        assertThatThrownBy(() -> JobSpecLoader.load(file))
                .isInstanceOf(JobSpecException.class)
                .hasMessageStartingWith(file + lineFragment)
                .hasMessageContaining(messageFragment)
                .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
    }

    private Path write(String yaml) throws IOException {
        Path file = Files.createTempFile(dir, "job", ".yaml");
        return Files.writeString(file, yaml);
    }
}
