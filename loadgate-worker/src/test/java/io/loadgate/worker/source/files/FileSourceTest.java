package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.transform.MapperCounts;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file source on real local files: planning a key's snapshot, reading it back, and refusing changed files. */
class FileSourceTest {
    /** 15:20 UTC: with a 15 minute delay, directories up to 15:05 are due. */
    private static final Clock NOW = Clock.fixed(Instant.parse("2026-11-30T15:20:00Z"), ZoneOffset.UTC);

    @TempDir
    Path root;

    @BeforeEach
    void drop() throws IOException {
        write("d_20261130-1400/part-0.json", """
                {"id": 1, "user": {"name": "ann"}, "amount": "12.50", "ts": "2026-11-30 14:01:02", "ok": true}
                {"id": 2, "user": {"name": "bob"}, "amount": 3, "ts": "2026-11-30 14:02:00", "ok": false}
                {"id": 3, "user": {"name": "cy"
                """);
        gzip("d_20261130-1410/part-1.json.gz", """
                {"id": 4, "user": {"name": "dee"}, "amount": 1.123, "ts": "2026-11-30 14:11:00"}
                {"id": 5, "user": {"name": "eve"}, "amount": null, "ts": "2026-11-30 14:12:00", "ok": true}
                {"id": 6, "amount": 7.25, "ts": "2026-11-30 14:13:00"}""");
        write("d_20261130-1410/_SUCCESS", "");
        write("d_20261130-1410/.part-2.json.tmp", "{\"id\": 99}\n");
        write("d_20261130-1500/part-0.json", "{\"id\": 7, \"ts\": \"2026-11-30 15:00:00\"}\n");
        write("d_20261130-1510/part-0.json", "{\"id\": 8, \"ts\": \"2026-11-30 15:10:00\"}\n");
        write("not_camus/part-0.json", "{\"id\": 9}\n");
    }

    private JobSpec job(String extra) {
        return JobSpecLoader.parse(Path.of("files.yaml"), """
                job_key: EVENTS
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    processing_delay: 15m
                    partitions: 2
                    columns:
                      - {name: id, type: bigint}
                      - {name: user_name, type: string, from: /user/name}
                      - {name: amount, type: "decimal(10,2)"}
                      - {name: ts, type: timestamp, format: "yyyy-MM-dd HH:mm:ss"}
                      - {name: ok, type: boolean}
                %s
                target:
                  table: lake.events
                  business_key_column: load_key
                staging:
                  root: /tmp/stage
                """.formatted(root.toUri(), extra));
    }

    private FileSource source(JobSpec job) {
        return new FileSource(job.source().files(), new Configuration(), NOW);
    }

    @Test
    void plansTheDueFilesOfTheHourWithTheirLinesAndBalancesThemByBytes() {
        FileSource source = source(job(""));

        assertThat(source.canonicalKey("2026/11/30/14")).isEqualTo("2026-11-30T14");
        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();

        assertThat(plan.split().rowCount()).as("3 + 3 lines, the unterminated last line included").isEqualTo(6);
        assertThat(plan.partitions()).hasSize(2).allSatisfy(p -> assertThat(p.sourceRef()).isNotBlank());
        List<SnapshotFile> files = new ArrayList<>();
        plan.partitions().forEach(p -> files.addAll(SnapshotFile.decode(p.sourceRef())));
        assertThat(files).extracting(SnapshotFile::path).as("hidden files and other hours left out")
                .containsExactlyInAnyOrder("d_20261130-1400/part-0.json", "d_20261130-1410/part-1.json.gz");
        assertThat(files).allSatisfy(f -> assertThat(f.length()).isEqualTo(root.resolve(f.path()).toFile().length()));
        assertThat(plan.columns()).extracting(SourceColumn::name)
                .containsExactly("id", "user_name", "amount", "ts", "ok", "load_key", "dt", "hr");
        assertThat(plan.sourceMetrics().orElseThrow().values()).containsEntry("COUNT", "6");
        assertThat(source.openSnapshot("2026-11-30T14").plan().snapshotRef()).as("the same listing, the same snapshot")
                .isEqualTo(plan.snapshotRef());
    }

    @Test
    void aDirectoryIsDueOnlyAfterTheProcessingDelay() {
        FileSource source = source(job(""));

        List<SnapshotFile> files = SnapshotFile.decode(source.openSnapshot("2026/11/30/15").plan().partitions().get(0)
                .sourceRef());

        assertThat(files).extracting(SnapshotFile::path).as("15:10 is not due before 15:25")
                .containsExactly("d_20261130-1500/part-0.json");
    }

    @Test
    void readsEveryLineAsARowOrARejectWithItsReasonAndTheDerivedColumns() {
        FileSource source = source(job(""));
        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();

        Read read = readAll(source, plan, "2026-11-30T14");

        assertThat(read.rows).containsExactlyInAnyOrder(
                "1|ann|12.50|2026-11-30T14:01:02|true|2026-11-30T14|2026-11-30|14",
                "2|bob|3.00|2026-11-30T14:02|false|2026-11-30T14|2026-11-30|14",
                "5|eve|null|2026-11-30T14:12|true|2026-11-30T14|2026-11-30|14",
                "6|null|7.25|2026-11-30T14:13|null|2026-11-30T14|2026-11-30|14");
        assertThat(read.rejects).hasSize(2);
        assertThat(read.rejects).anySatisfy(r -> assertThat(r).startsWith("{\"id\": 3").contains("part-0.json:3: not JSON"));
        assertThat(read.rejects).anySatisfy(r -> assertThat(r).startsWith("{\"id\": 4")
                .contains("part-1.json.gz:1: amount: '1.123' is not of type decimal(10,2)"));
        assertThat(read.rows.size() + read.rejects.size()).as("every line counted").isEqualTo(plan.split().rowCount());
        assertThat(readAll(source, plan, "2026-11-30T14")).as("a reissued partition reads the same rows").isEqualTo(read);
    }

    @Test
    void aMapperGivesThePartitionsRowsFromItsLinesAndItsCountsReconcileThem() throws IOException {
        Path mapper = Files.writeString(root.resolve("mapper.py"), """
                import json, sys
                for line in sys.stdin:
                    try:
                        event = json.loads(line)
                    except ValueError:
                        print("\\x1enot JSON")
                        continue
                    for copy in range(2 if event["id"] == 5 else 1):
                        print(json.dumps(event))
                    print("\\x1e")
                """);
        JobSpec job = job("""
                transform:
                  steps:
                    - mapper: {command: [python3, "%s"], output: json}
                """.formatted(mapper));
        FileSource source = new FileSource(job.source().files(), job.transform().mapper(), new Configuration(), NOW);
        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();

        Read read = readAll(source, plan, "2026-11-30T14");

        assertThat(read.rows).containsExactlyInAnyOrder(
                "1|ann|12.50|2026-11-30T14:01:02|true|2026-11-30T14|2026-11-30|14",
                "2|bob|3.00|2026-11-30T14:02|false|2026-11-30T14|2026-11-30|14",
                "5|eve|null|2026-11-30T14:12|true|2026-11-30T14|2026-11-30|14",
                "5|eve|null|2026-11-30T14:12|true|2026-11-30T14|2026-11-30|14",
                "6|null|7.25|2026-11-30T14:13|null|2026-11-30T14|2026-11-30|14");
        assertThat(read.rejects).singleElement().asString().startsWith("{\"id\": 4, \"user\": {\"name\": \"dee\"}")
                .contains("d_20261130-1410/part-1.json.gz:1: a row of the mapper: amount: '1.123' is not of type");
        long[] counts = new long[3];
        for (Partition partition : plan.partitions()) {
            try (PartitionRows rows = source.readPartition(plan.snapshotRef(), partition, "2026-11-30T14")) {
                rows.rejectLinesTo((line, reason) -> { });
                while (rows.next()) {
                    // Counted below.
                }
                MapperCounts mapped = rows.mapperCounts().orElseThrow();
                counts[0] += mapped.linesRead();
                counts[1] += mapped.linesSkipped();
                counts[2] += mapped.rowsEmitted();
            }
        }
        assertThat(counts).as("lines read, skipped, rows emitted").containsExactly(plan.split().rowCount(), 1, 6);
        assertThat(readAll(source, plan, "2026-11-30T14")).as("a reissued partition maps to the same rows")
                .isEqualTo(read);

        Files.writeString(root.resolve("d_20261130-1400/part-0.json"), "{\"id\": 10}\n", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> readAll(source, plan, "2026-11-30T14")).as("read on the mapper's writer thread")
                .isInstanceOf(SnapshotExpiredException.class)
                .hasMessageContaining("d_20261130-1400/part-0.json changed since the snapshot");

        JobSpec tsv = job("""
                transform:
                  steps:
                    - mapper: {command: [python3, "%s"], output: tsv}
                """.formatted(mapper));
        assertThatThrownBy(() -> new FileSource(tsv.source().files(), tsv.transform().mapper(), new Configuration(), NOW))
                .hasMessageContaining("columns[user_name].from names a header field, but a mapper's tsv rows have no"
                        + " header: give a 0-based index");
    }

    @Test
    void aFileAppendedAfterPlanningExpiresTheSnapshot() throws IOException {
        FileSource source = source(job(""));
        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();

        Files.writeString(root.resolve("d_20261130-1400/part-0.json"), "{\"id\": 10}\n", StandardOpenOption.APPEND);

        assertThatThrownBy(() -> readAll(source, plan, "2026-11-30T14")).isInstanceOf(SnapshotExpiredException.class)
                .hasMessageContaining("d_20261130-1400/part-0.json changed since the snapshot");
    }

    @Test
    void aFileAppendedWhileItIsReadExpiresTheSnapshot() throws IOException {
        FileSource source = source(job(""));
        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();
        Partition withPlainFile = plan.partitions().stream()
                .filter(p -> p.sourceRef().contains("part-0.json,")).findFirst().orElseThrow();

        try (PartitionRows rows = source.readPartition(plan.snapshotRef(), withPlainFile, "2026-11-30T14")) {
            rows.rejectLinesTo((line, reason) -> { });
            assertThat(rows.next()).isTrue();
            Files.writeString(root.resolve("d_20261130-1400/part-0.json"), "{\"id\": 10}\n", StandardOpenOption.APPEND);
            assertThatThrownBy(() -> {
                while (rows.next()) {
                    // Reads on to the end of the file, where the change is seen.
                }
            }).isInstanceOf(SnapshotExpiredException.class);
        }
    }

    @Test
    void readsCsvWithAHeaderAndBzip2TsvByIndexFromAColumnsFile() throws IOException {
        write("d_20261201-0900/a.csv", "name,id,note\n\"x, y\",1,\"say \"\"hi\"\"\"\nz,oops,\n");
        JobSpec csv = JobSpecLoader.parse(Path.of("csv.yaml"), """
                job_key: CSV
                source:
                  files:
                    root: "%s"
                    format: csv
                    header: true
                    group_by: day
                    columns: [{name: id, type: int}, {name: name, type: string}, {name: note, type: string}]
                target: {table: lake.csv, business_key_column: dt}
                staging: {root: /tmp/stage}
                """.formatted(root.toUri()));
        FileSource csvSource = new FileSource(csv.source().files(), new Configuration(),
                Clock.fixed(Instant.parse("2026-12-02T00:00:00Z"), ZoneOffset.UTC));
        SourcePlan plan = csvSource.openSnapshot("2026/12/01").plan();
        assertThat(plan.split().rowCount()).as("the header is no row").isEqualTo(2);
        Read read = readAll(csvSource, plan, "2026-12-01");
        assertThat(read.rows).containsExactly("1|x, y|say \"hi\"|2026-12-01|2026-12-01");
        assertThat(read.rejects).singleElement().asString().contains("id: 'oops' is not of type int");

        Path columns = root.resolve("hive_columns.csv");
        Files.writeString(columns, "# Thrive's form\nid bigint\nday date\n");
        BZip2Codec bzip2 = new BZip2Codec();
        bzip2.setConf(new Configuration());
        Files.createDirectories(root.resolve("d_20261202-0000"));
        try (OutputStream out = bzip2.createOutputStream(Files.newOutputStream(root.resolve("d_20261202-0000/b.tsv.bz2")))) {
            out.write("7\t2026-12-02\textra\n\\N\t\n".getBytes(StandardCharsets.UTF_8));
        }
        JobSpec tsv = JobSpecLoader.parse(Path.of("tsv.yaml"), """
                job_key: TSV
                source:
                  files:
                    root: "%s"
                    format: tsv
                    group_by: day
                    columns_file: "%s"
                target: {table: lake.tsv, business_key_column: load_key}
                staging: {root: /tmp/stage}
                """.formatted(root.toUri(), columns.toUri()));
        FileSource tsvSource = new FileSource(tsv.source().files(), new Configuration(),
                Clock.fixed(Instant.parse("2026-12-03T00:00:00Z"), ZoneOffset.UTC));
        assertThat(readAll(tsvSource, tsvSource.openSnapshot("20261202").plan(), "2026-12-02").rows)
                .containsExactly("7|2026-12-02|2026-12-02|2026-12-02", "null|null|2026-12-02|2026-12-02");
    }

    @Test
    void refusesKeysOfAnotherFormAndColumnsThatCollideWithTheDerivedOnes() {
        FileSource source = source(job(""));

        assertThatThrownBy(() -> source.canonicalKey("2026/11/30")).isInstanceOf(JobSpecException.class)
                .hasMessageContaining("write it as 2026/11/30/14");
        assertThatThrownBy(() -> source.canonicalKey("2026/02/30/01")).isInstanceOf(JobSpecException.class);
        assertThat(FileKey.parse(io.loadgate.worker.job.FileGrouping.HOUR, "2026113014").slashed())
                .isEqualTo("2026/11/30/14");
        assertThat(new KeyPartitionColumns(io.loadgate.worker.job.FileGrouping.HOUR, "load_key", "dt", "hr")
                .values(FileKey.of(io.loadgate.worker.job.FileGrouping.HOUR, LocalDateTime.of(2026, 11, 30, 14, 50))))
                .containsExactly("2026-11-30T14", LocalDate.of(2026, 11, 30), 14);
        assertThatThrownBy(() -> source(job("    partition_columns: {date: ts}")))
                .hasMessageContaining("column ts is declared twice");
    }

    @Test
    void balancesLargestFirstIntoTheLightestPartitionAndSplitsListingsTooLongForTheLedger() {
        List<SnapshotFile> files = List.of(new SnapshotFile("d/a", 100, 1, 1), new SnapshotFile("d/b", 60, 1, 1),
                new SnapshotFile("d/c", 50, 1, 1), new SnapshotFile("d/d", 10, 1, 1));
        assertThat(FileSource.balance(files, 2)).extracting(bin -> bin.stream().map(SnapshotFile::path).toList())
                .containsExactly(List.of("d/a", "d/d"), List.of("d/b", "d/c"));

        List<SnapshotFile> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(new SnapshotFile("d_20261130-1400/part-%05d.json.gz".formatted(i), 1_000 + i, 1_764_511_200_000L, 10));
        }
        List<List<SnapshotFile>> bins = FileSource.balance(many, 1);
        assertThat(bins.size()).as("one partition cannot list 300 files in 4000 characters").isGreaterThan(1);
        assertThat(bins).allSatisfy(bin -> assertThat(SnapshotFile.encode(bin).length()).isLessThanOrEqualTo(4000));
        assertThat(bins.stream().mapToInt(List::size).sum()).isEqualTo(300);
        assertThat(SnapshotFile.decode(SnapshotFile.encode(List.of(new SnapshotFile("d/a,b;c%", 1, 2, 3)))))
                .containsExactly(new SnapshotFile("d/a,b;c%", 1, 2, 3));
    }

    record Read(List<String> rows, List<String> rejects) {
    }

    static Read readAll(FileSource source, SourcePlan plan, String key) {
        List<String> rows = new ArrayList<>();
        List<String> rejects = new ArrayList<>();
        for (Partition partition : plan.partitions()) {
            try (PartitionRows read = source.readPartition(plan.snapshotRef(), partition, key)) {
                read.rejectLinesTo((line, reason) -> rejects.add(line + " => " + reason));
                while (read.next()) {
                    List<String> values = new ArrayList<>();
                    for (int i = 0; i < read.columns().size(); i++) {
                        Object value = read.value(i);
                        values.add(value instanceof BigDecimal d ? d.toPlainString() : String.valueOf(value));
                    }
                    rows.add(String.join("|", values));
                }
            }
        }
        return new Read(rows, rejects);
    }

    /**
     * Camus's compressed text files: {@code .snappy} as Hadoop's SnappyCodec writes them (its block stream, through
     * snappy-java: no native Hadoop needed), {@code .zst} as Zstandard frames (written here by zstd-jni, the library
     * Parquet brings, as Hadoop's ZStandardCodec and the zstd tool write them), each line counted at planning and read
     * back as a row.
     */
    @Test
    void readsSnappyAndZstandardFilesWrittenByTheirLibraries() throws IOException {
        Path day = Files.createDirectories(root.resolve("d_20261203-0000"));
        org.apache.hadoop.io.compress.SnappyCodec snappy = new org.apache.hadoop.io.compress.SnappyCodec();
        snappy.setConf(new Configuration());
        StringBuilder many = new StringBuilder();
        for (int id = 100; id < 5_100; id++) {
            many.append("{\"id\": ").append(id).append("}\n");
        }
        try (OutputStream out = snappy.createOutputStream(Files.newOutputStream(day.resolve("a.json.snappy")))) {
            out.write(many.toString().getBytes(StandardCharsets.UTF_8));
        }
        try (OutputStream out = new com.github.luben.zstd.ZstdOutputStream(
                Files.newOutputStream(day.resolve("b.json.zst")))) {
            out.write("{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}".getBytes(StandardCharsets.UTF_8));
        }
        JobSpec job = JobSpecLoader.parse(Path.of("compressed.yaml"), """
                job_key: COMPRESSED
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: day
                    partitions: 2
                    columns: [{name: id, type: bigint}]
                target: {table: lake.compressed, business_key_column: load_key}
                staging: {root: /tmp/stage}
                """.formatted(root.toUri()));
        FileSource source = new FileSource(job.source().files(), new Configuration(),
                Clock.fixed(Instant.parse("2026-12-04T00:00:00Z"), ZoneOffset.UTC));

        SourcePlan plan = source.openSnapshot("2026-12-03").plan();

        assertThat(plan.split().rowCount()).isEqualTo(5_003);
        Read read = readAll(source, plan, "2026-12-03");
        assertThat(read.rejects).isEmpty();
        assertThat(read.rows).hasSize(5_003).contains("1|2026-12-03|2026-12-03", "3|2026-12-03|2026-12-03",
                "100|2026-12-03|2026-12-03", "5099|2026-12-03|2026-12-03");
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private void gzip(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
