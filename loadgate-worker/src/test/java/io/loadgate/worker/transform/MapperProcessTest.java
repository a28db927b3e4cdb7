package io.loadgate.worker.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.worker.job.TransformStep;
import io.loadgate.worker.source.SnapshotExpiredException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A job's mapper run as a real python3 process over lines, as a file partition runs it. */
@Timeout(120)
class MapperProcessTest {
    /** Thrive's FAQ case: one JSON event to one row per item; an event without items gives none, and says why. */
    static final String FAN_OUT = """
            import json, sys
            for line in sys.stdin:
                event = json.loads(line)
                if not event["items"]:
                    print("\\x1eno items")
                    continue
                for item in event["items"]:
                    print(json.dumps({"id": event["id"], "item": item}))
                print("\\x1e")
            """;

    @TempDir
    Path dir;

    private TransformStep.Mapper mapper(String script, String timeout) throws IOException {
        Path file = Files.writeString(dir.resolve("mapper.py"), script);
        return new TransformStep.Mapper(List.of("python3", file.toString()), TransformStep.MapperOutput.JSON, timeout);
    }

    private static MapperProcess.Lines lines(String... lines) {
        Iterator<String> it = List.of(lines).iterator();
        return () -> it.hasNext() ? it.next() : null;
    }

    private record Row(long line, String text) {
    }

    private static List<Row> drain(MapperProcess process) {
        List<Row> rows = new ArrayList<>();
        for (String row = process.nextRow(); row != null; row = process.nextRow()) {
            rows.add(new Row(process.lineNumber(), row));
        }
        return rows;
    }

    @Test
    void fansOneLineOutToSeveralRowsAndCountsALineThatGivesNoneAsSkippedWithItsReason() throws IOException {
        try (MapperProcess process = MapperProcess.start(mapper(FAN_OUT, null), "0000", lines(
                "{\"id\": 1, \"items\": [\"a\", \"b\", \"c\"]}",
                "{\"id\": 2, \"items\": []}",
                "{\"id\": 3, \"items\": [\"d\"]}"))) {
            List<Row> rows = drain(process);

            assertThat(rows).containsExactly(
                    new Row(1, "{\"id\": 1, \"item\": \"a\"}"), new Row(1, "{\"id\": 1, \"item\": \"b\"}"),
                    new Row(1, "{\"id\": 1, \"item\": \"c\"}"), new Row(3, "{\"id\": 3, \"item\": \"d\"}"));
            assertThat(process.counts()).isEqualTo(new MapperCounts(3, 1, 4, Map.of("no items", 1L)));
            assertThat(process.nextRow()).as("finished").isNull();
        }
    }

    @Test
    void aLargeInputStreamsThroughThePipesWithTheCountsExact() throws IOException {
        long lines = 200_000;
        AtomicLong given = new AtomicLong();
        // Every third line is skipped without a reason; the others give themselves back as a row.
        String echo = """
                import sys
                for n, line in enumerate(sys.stdin):
                    if n % 3 == 2:
                        print("\\x1e")
                    else:
                        sys.stdout.write(line + "\\x1e\\n")
                """;
        try (MapperProcess process = MapperProcess.start(mapper(echo, null), "0001",
                () -> given.get() < lines ? "{\"n\": " + given.incrementAndGet() + "}" : null)) {
            long rows = 0;
            long last = 0;
            for (String row = process.nextRow(); row != null; row = process.nextRow()) {
                rows++;
                last = process.lineNumber();
                assertThat(row).isEqualTo("{\"n\": " + last + "}");
            }
            long skipped = LongStream.rangeClosed(1, lines).filter(n -> n % 3 == 0).count();
            assertThat(rows).isEqualTo(lines - skipped);
            assertThat(process.counts()).isEqualTo(new MapperCounts(lines, skipped, lines - skipped,
                    Map.of(MapperProcess.NO_REASON, skipped)));
        }
    }

    @Test
    void aCallerThatStopsReadingStopsTheWriterThroughThePipes() throws IOException {
        String echo = """
                import sys
                for line in sys.stdin:
                    sys.stdout.write(line + "\\x1e\\n")
                """;
        AtomicLong given = new AtomicLong();
        // An endless source: only backpressure keeps the writer from pulling it all.
        try (MapperProcess process = MapperProcess.start(mapper(echo, null), "0008",
                () -> "{\"n\": " + given.incrementAndGet() + "}")) {
            for (int i = 0; i < 10; i++) {
                assertThat(process.nextRow()).isNotNull();
            }
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                long now = given.get();
                boolean still = now == last[0];
                last[0] = now;
                return still;
            });
            // The pipes (64 KiB each way on Linux), the 64 KiB stdin buffer and Python's own buffers: ~15 bytes a line.
            assertThat(given.get()).as("lines pulled while nobody reads").isLessThan(100_000);
        }
    }

    @Test
    void aProgramThatExitsNonZeroFailsAtOnceWithItsExitCodeAndNotItsStderr() throws IOException {
        String failing = """
                import sys
                sys.stdin.readline()
                sys.stderr.write("connecting with password=hunter2\\n")
                sys.exit(3)
                """;
        AtomicLong given = new AtomicLong();
        // Far more input than the pipes hold: failing at once means not waiting for it to be written.
        try (MapperProcess process = MapperProcess.start(mapper(failing, null), "0002",
                () -> given.incrementAndGet() <= 10_000_000 ? "{\"id\": 1}" : null)) {
            assertThatThrownBy(process::nextRow)
                    .isInstanceOfSatisfying(MapperFailedException.class,
                            e -> assertThat(e.reason()).isEqualTo(MapperFailedException.Reason.MAPPER_EXIT))
                    .hasMessageContaining("exited with code 3 after mapping 0 of")
                    .hasMessageNotContaining("hunter2");
        }
        assertThat(given.get()).as("lines pulled before the failure was known").isLessThan(10_000_000);
    }

    @Test
    void aProgramThatHangsIsKilledWithItsChildrenAfterTheTimeout() throws IOException {
        Path pidFile = dir.resolve("child.pid");
        String hanging = """
                import subprocess, sys, time
                sys.stdin.readline()
                child = subprocess.Popen(["sleep", "600"])
                with open(sys.argv[1], "w") as f:
                    f.write(str(child.pid))
                time.sleep(600)
                """;
        Path file = Files.writeString(dir.resolve("hang.py"), hanging);
        var spec = new TransformStep.Mapper(List.of("python3", file.toString(), pidFile.toString()),
                TransformStep.MapperOutput.TSV, "2s");
        try (MapperProcess process = MapperProcess.start(spec, "0003", lines("a", "b"))) {
            assertThatThrownBy(process::nextRow)
                    .isInstanceOfSatisfying(MapperFailedException.class,
                            e -> assertThat(e.reason()).isEqualTo(MapperFailedException.Reason.MAPPER_TIMEOUT))
                    .hasMessageContaining("for PT2S")
                    .hasMessageContaining("0 of 2 lines mapped");
        }
        long child = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false))
                        .as("the mapper's child, killed with it").isFalse());
    }

    @Test
    void rowsAfterTheLastEndMarkOrAnEndMarkForALineNeverGivenBreakTheFraming() throws IOException {
        String unterminated = """
                import sys
                for line in sys.stdin:
                    print(line.strip())
                """;
        try (MapperProcess process = MapperProcess.start(mapper(unterminated, null), "0004", lines("{}"))) {
            assertThat(process.nextRow()).isEqualTo("{}");
            assertThatThrownBy(process::nextRow).isInstanceOf(MapperFailedException.class)
                    .hasMessageContaining("gave 1 rows after its last end mark");
        }
        String extraMark = """
                import sys
                print("\\x1e")
                print("\\x1e")
                """;
        try (MapperProcess process = MapperProcess.start(mapper(extraMark, null), "0005", lines("{}"))) {
            assertThatThrownBy(process::nextRow)
                    .isInstanceOfSatisfying(MapperFailedException.class,
                            e -> assertThat(e.reason()).isEqualTo(MapperFailedException.Reason.MAPPER_PROTOCOL))
                    .hasMessageContaining("ended line 2 but was given 1 lines");
        }
    }

    @Test
    void theProgramSeesNoneOfTheWorkersVariablesButTheFewItNeeds() {
        // sh itself sets PWD; env prints what the program was given, one NAME=value a row.
        var spec = new TransformStep.Mapper(List.of("sh", "-c", "read line; env; printf '\\036\\n'"),
                TransformStep.MapperOutput.TSV, null);
        List<String> names = new ArrayList<>();
        try (MapperProcess process = MapperProcess.start(spec, "0009", lines("x"))) {
            for (String row = process.nextRow(); row != null; row = process.nextRow()) {
                if (row.indexOf('=') > 0) {
                    names.add(row.substring(0, row.indexOf('=')));
                }
            }
        }
        names.remove("PWD");
        assertThat(names).as("the worker has PATH: the program gets it").contains("PATH");
        assertThat(MapperProcess.PASSED_ENVIRONMENT).as("nothing but the allowed names").containsAll(names);
        assertThat(System.getenv().keySet()).as("the worker has more than it passes on")
                .anySatisfy(name -> assertThat(MapperProcess.PASSED_ENVIRONMENT).doesNotContain(name));
    }

    @Test
    void aFailureToReadTheInputFailsAsItselfAndACommandThatDoesNotExistCannotStart() throws IOException {
        SnapshotExpiredException expired = new SnapshotExpiredException("file d_x/part-0 changed", null);
        AtomicLong given = new AtomicLong();
        try (MapperProcess process = MapperProcess.start(mapper(FAN_OUT, null), "0006", () -> {
            if (given.incrementAndGet() > 2) {
                throw expired;
            }
            return "{\"id\": 1, \"items\": [\"a\"]}";
        })) {
            assertThatThrownBy(() -> drain(process)).isSameAs(expired);
        }

        var missing = new TransformStep.Mapper(List.of(dir.resolve("no-such-program").toString()),
                TransformStep.MapperOutput.TSV, null);
        assertThatThrownBy(() -> MapperProcess.start(missing, "0007", lines("a")))
                .isInstanceOfSatisfying(MapperFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(MapperFailedException.Reason.MAPPER_START))
                .hasMessageContaining("cannot start");
    }
}
