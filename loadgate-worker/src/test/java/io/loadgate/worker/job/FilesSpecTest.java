package io.loadgate.worker.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code source.files} as the loader reads it: every default pinned, mistakes refused naming file, line and key. */
class FilesSpecTest {
    private static JobSpec parse(String files, String keyColumn) {
        return JobSpecLoader.parse(Path.of("files.yaml"), """
                job_key: EVENTS
                source:
                  files:
                %s
                target: {table: lake.events, business_key_column: %s}
                staging: {root: /data/stage}
                """.formatted(files.indent(4).stripTrailing(), keyColumn));
    }

    @Test
    void pinsEveryDefault() {
        FilesSpec files = parse("""
                root: /data/events
                format: ndjson
                group_by: hour
                columns: [{name: id, type: bigint}]""", "load_key").source().files();

        assertThat(files.root()).isEqualTo(URI.create("file:/data/events"));
        assertThat(files.layout()).isEqualTo(FileLayout.CAMUS);
        assertThat(files.zone().getId()).isEqualTo("UTC");
        assertThat(files.header()).isFalse();
        assertThat(files.delay()).isEqualTo(Duration.ZERO);
        assertThat(files.partitions()).isEqualTo(SourceSpec.DEFAULT_PARTITIONS);
        assertThat(files.partitionColumns()).isEqualTo(new PartitionColumnsSpec("load_key", "dt", "hr"));
        assertThat(files.fieldDelimiter()).isEqualTo(',');
        assertThat(files.fieldQuote()).isNull();
        assertThat(parse("""
                root: hdfs://nn:8020/events
                format: tsv
                group_by: day
                processing_delay: 90m
                columns_file: hdfs://nn:8020/onboarding/hive_columns.csv""", "dt").source().files().delay())
                .isEqualTo(Duration.ofMinutes(90));
    }

    private static final String EVENTS = """
            root: /data/events
            format: ndjson
            group_by: hour
            columns: [{name: id, type: bigint}]""";

    private static JobSpec mapped(String files, String steps) {
        return JobSpecLoader.parse(Path.of("mapped.yaml"), """
                job_key: EVENTS
                source:
                  files:
                %s
                target: {table: lake.events, business_key_column: load_key}
                staging: {root: /data/stage}
                transform:
                  steps:
                %s
                """.formatted(files.indent(4).stripTrailing(), steps.indent(4).stripTrailing()));
    }

    @Test
    void aMapperIsTheFirstStepOfAFileJobWithoutAHeaderAndItsTimeoutDefaultsToFiveMinutes() {
        TransformSpec transform = mapped(EVENTS, """
                - mapper: {command: [python3, /opt/mapper.py], output: tsv}
                - require: [id]""").transform();
        assertThat(transform.mapper()).isEqualTo(new TransformStep.Mapper(List.of("python3", "/opt/mapper.py"),
                TransformStep.MapperOutput.TSV, null));
        assertThat(transform.mapper().timeoutDuration()).isEqualTo(Duration.ofMinutes(5));
        assertThat(mapped(EVENTS, "- mapper: {command: [./m], output: json, timeout: 90s}").transform().mapper()
                .timeoutDuration()).isEqualTo(Duration.ofSeconds(90));

        assertThatThrownBy(() -> mapped(EVENTS, """
                - require: [id]
                - mapper: {command: [python3, m.py], output: tsv}""")).isInstanceOf(JobSpecException.class)
                .hasMessageContaining("transform.steps[1]: a mapper must be the first step");
        assertThatThrownBy(() -> mapped(EVENTS.replace("ndjson", "csv") + "\nheader: true",
                "- mapper: {command: [python3, m.py], output: tsv}"))
                .hasMessageContaining("needs a source.files source without a header");
        assertThatThrownBy(() -> mapped(EVENTS, "- mapper: {command: [], output: tsv}"))
                .hasMessageContaining("mapper.command must be a non-empty list");
        assertThatThrownBy(() -> mapped(EVENTS, "- mapper: {command: [m]}"))
                .hasMessageContaining("mapper.output is required (tsv or json)");
        assertThatThrownBy(() -> mapped(EVENTS, "- mapper: {command: [m], output: tsv, timeout: 0s}"))
                .hasMessageContaining("mapper.timeout must be above zero");
        assertThatThrownBy(() -> mapped(EVENTS, "- mapper: {command: [m], output: xml}"))
                .hasMessageContaining("output");
    }

    @Test
    void refusesMistakesWithTheirKeyAndLine() {
        assertThatThrownBy(() -> parse("""
                root: /data/events
                format: ndjson
                group_by: hour
                partitons: 2
                columns: [{name: id, type: bigint}]""", "load_key"))
                .isInstanceOf(JobSpecException.class).hasMessageStartingWith("files.yaml:7:")
                .hasMessageContaining("unknown key 'partitons'");
        assertThatThrownBy(() -> parse("""
                root: /data/events
                format: ndjson
                group_by: hour
                colums: [{name: id, type: bigint}]""", "load_key"))
                .as("a misspelt required key is named, not reported as the key missing")
                .isInstanceOf(JobSpecException.class).hasMessageStartingWith("files.yaml:7:")
                .hasMessageContaining("source.files.colums: unknown key 'colums'; expected one of ")
                .hasMessageContaining("columns_file")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("exactly one of"));
        assertThatThrownBy(() -> parse("""
                root: s3://bucket/events
                format: ndjson
                group_by: hour
                columns: [{name: id, type: bigint}]""", "load_key"))
                .hasMessageContaining("source.files.root must be a file:// or hdfs:// URI");
        assertThatThrownBy(() -> parse("""
                root: /data/events
                format: ndjson
                group_by: hour
                columns: [{name: id, type: bigint}]""", "dt"))
                .hasMessageContaining("must be the derived key column load_key");
        assertThatThrownBy(() -> parse("""
                root: /data/events
                format: ndjson
                group_by: hour
                processing_delay: soon
                columns: [{name: id, type: bigint}]""", "load_key")).hasMessageContaining("processing_delay");
        assertThatThrownBy(() -> JobSpecLoader.parse(Path.of("mixed.yaml"), """
                job_key: EVENTS
                source:
                  jdbc_url: "jdbc:postgresql://db/x"
                  files: {root: /data/events, format: ndjson, group_by: hour, columns: [{name: id, type: bigint}]}
                target: {table: lake.events, business_key_column: load_key}
                staging: {root: /data/stage}
                """)).hasMessageContaining("source.files takes no JDBC keys");
    }
}
