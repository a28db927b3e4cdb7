package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate check}: a file job's parser and transforms on a sample, with no ledger and no target. */
class CheckCommandTest {
    @TempDir
    Path dir;

    private Path job(String transform) throws IOException {
        return Files.writeString(dir.resolve("events.yaml"), """
                job_key: EVENTS
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    columns:
                      - {name: id, type: bigint}
                      - {name: amount, type: "decimal(8,2)"}
                target: {table: lake.events, business_key_column: load_key}
                staging: {root: /tmp/stage}
                %s""".formatted(dir.toUri(), transform));
    }

    @Test
    void printsTheTypedRowsAndEveryRejectAndExitsNonZeroWhenOneWasRejected() throws IOException {
        Path sample = Files.writeString(dir.resolve("sample.json"), """
                {"id": 1, "amount": 2.5}
                {"id": 2, "amount": 700}
                {"id": "three"}
                """);

        var result = OperatorCommandsTest.run("check", job("""
                transform:
                  steps:
                    - range: {column: amount, max: 100}
                """).toString(), "--sample", sample.toString(), "--business-key", "2026/11/30/14");

        assertThat(result.exit()).as(result.toString()).isEqualTo(1);
        assertThat(result.out()).containsPattern("(?m)^id +amount +load_key +dt +hr *$")
                .containsPattern("(?m)^1 +2\\.50 +2026-11-30T14 +2026-11-30 +14 *$")
                .contains("3 lines: 1 rows, 2 rejected", "id: 'three' is not of type bigint", "{\"id\": \"three\"}",
                        "range amount");
    }

    @Test
    void runsTheMapperOnTheSampleAndPrintsItsRowsItsSkippedLinesAndItsRejects() throws IOException {
        Path mapper = Files.writeString(dir.resolve("mapper.py"), """
                import json, sys
                for line in sys.stdin:
                    event = json.loads(line)
                    if not event["items"]:
                        print("\\x1eno items")
                        continue
                    for item in event["items"]:
                        print("%d\\t%s" % (event["id"], item))
                    print("\\x1e")
                """);
        Path sample = Files.writeString(dir.resolve("sample.json"), """
                {"id": 1, "items": ["2.5", "3"]}
                {"id": 2, "items": []}
                {"id": 3, "items": ["lots"]}
                """);

        var result = OperatorCommandsTest.run("check", job("""
                transform:
                  max_rejected: 1
                  steps:
                    - mapper: {command: [python3, "%s"], output: tsv}
                """.formatted(mapper)).toString(), "--sample", sample.toString());

        assertThat(result.exit()).as(result.toString()).isEqualTo(1);
        assertThat(result.out()).containsPattern("(?m)^1 +2\\.50 +- +- +- *$")
                .containsPattern("(?m)^1 +3\\.00 +")
                .contains("3 lines mapped: 1 skipped, 3 rows emitted", "skipped 1 lines: no items",
                        "2 rows, 1 rejected", "sample.json:3: a row of the mapper: amount: 'lots'");

        Path failing = Files.writeString(dir.resolve("failing.py"), "import sys\nsys.exit(4)\n");
        var failed = OperatorCommandsTest.run("check", job("""
                transform:
                  steps:
                    - mapper: {command: [python3, "%s"], output: json}
                """.formatted(failing)).toString(), "--sample", sample.toString());
        assertThat(failed.exit()).isEqualTo(2);
        assertThat(failed.err()).contains("exited with code 4");
    }

    @Test
    void exitsZeroWhenEveryLineIsARowAndRefusesAJobThatReadsADatabase() throws IOException {
        Path sample = Files.writeString(dir.resolve("sample.json"), "{\"id\": 1, \"amount\": 2.5}\n");

        var clean = OperatorCommandsTest.run("check", job("").toString(), "--sample", sample.toString());
        assertThat(clean.exit()).as(clean.toString()).isZero();
        assertThat(clean.out()).contains("1 lines: 1 rows, 0 rejected");

        Path database = Files.writeString(dir.resolve("db.yaml"), """
                job_key: DB
                source: {jdbc_url: "jdbc:postgresql://db/x", table: public.t, split_column: id}
                target: {table: lake.t, business_key_column: day}
                staging: {root: /tmp/stage}
                """);
        var refused = OperatorCommandsTest.run("check", database.toString(), "--sample", sample.toString());
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err().lines()).singleElement().asString().contains("source.files");
    }
}
