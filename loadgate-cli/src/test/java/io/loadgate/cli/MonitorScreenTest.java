package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The monitor's layout: within the terminal's width whatever the data, colours only when asked, live limits. */
class MonitorScreenTest {
    private static final ZonedDateTime NOW = ZonedDateTime.of(2026, 11, 30, 3, 12, 45, 0, ZoneOffset.UTC);
    private static final String LONG_JOB = "A_VERY_LONG_JOB_KEY_" + "X".repeat(180);

    private static Map<String, Object> attention(String kind, String status, String error) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("runId", UUID.randomUUID().toString());
        a.put("jobKey", LONG_JOB);
        a.put("businessKey", "2026-11-29T00:00:00.000_" + "k".repeat(150));
        a.put("status", status);
        a.put("since", NOW.toInstant().minus(Duration.ofMinutes(135)).toString());
        a.put("reason", "why");
        a.put("kind", kind);
        a.put("dispatchId", kind.equals("DEAD_DISPATCH") ? UUID.randomUUID().toString() : null);
        a.put("dispatchType", kind.equals("DEAD_DISPATCH") ? "VALIDATE_RUN" : null);
        a.put("errorCode", kind.equals("FAILED_RUN") ? "ROW_COUNT_MISMATCH" : null);
        a.put("errorMessage", error);
        return a;
    }

    private static Map<String, Object> summary(int attentionEach, int active) {
        List<Object> attention = new ArrayList<>();
        for (int i = 0; i < attentionEach; i++) {
            // The ledger sends the oldest first, whatever the kind.
            attention.add(attention("FAILED_RUN", "FAILED_EXTRACT", "line one\nline two " + "m".repeat(3000)));
            attention.add(attention("DEAD_DISPATCH", "PUBLISHED", "403 " + "e".repeat(3000)));
            attention.add(attention("PUBLISH_UNKNOWN", "PUBLISH_UNKNOWN", null));
        }
        List<Object> runs = new ArrayList<>();
        for (int i = 0; i < active; i++) {
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("runId", UUID.randomUUID().toString());
            run.put("jobKey", LONG_JOB);
            run.put("businessKey", "2026-11-29");
            run.put("status", "EXTRACTED_VALIDATED");
            run.put("successPartitionCount", 9999);
            run.put("expectedPartitionCount", 10000);
            run.put("extractedCount", 1_234_567_890_123L);
            run.put("sourceCount", 9_876_543_210_987L);
            run.put("startedAt", NOW.toInstant().minus(Duration.ofDays(3).plusHours(4)).toString());
            runs.add(run);
        }
        Map<String, Object> statuses = new LinkedHashMap<>();
        for (String s : List.of("CREATED", "EXTRACTED_VALIDATED", "EXTRACTING", "FAILED_EXTRACT", "FAILED_MANIFEST",
                "FAILED_PUBLISH", "FAILED_STAGE_VALIDATION", "FAILED_TARGET_VALIDATION", "PUBLISHED", "PUBLISHING",
                "PUBLISH_UNKNOWN", "STAGE_VALIDATING", "STAGING_VALIDATED", "SUCCESS", "TIMED_OUT")) {
            statuses.put(s, 12345);
        }
        return Map.of("runsByStatus", statuses, "dispatchesByStatus", Map.of("DEAD", 3), "attention", attention,
                "activeRuns", runs);
    }

    private static List<String> render(Map<String, Object> json, String problem, MonitorScreen.Layout layout) {
        var summary = MonitorScreen.Summary.from(json);
        return MonitorScreen.render(new MonitorScreen.State("https://a-rather-long-ledger-host.example.org:8443", NOW,
                summary, NOW.toInstant().minusSeconds(30), problem), layout);
    }

    @Test
    void longKeysMessagesAndCountsStayWithin79Columns() {
        List<String> lines = render(summary(2, 3), null, MonitorScreen.Layout.snapshot(80, null));

        String screen = String.join("\n", lines);
        assertThat(lines).as(screen).allSatisfy(line -> assertThat(line.length()).as(line)
                .isLessThanOrEqualTo(79));
        assertThat(lines.get(0)).as("the clock first: a long URL is cut, never the time")
                .isEqualTo("LOADGATE MONITOR  2026-11-30 03:12:45 +00:00  https://a-rather-long-ledger-hos~");
        assertThat(screen).doesNotContain("\033[").contains("SUCCESS 12345", "TIMED_OUT 12345");
        assertThat(screen).as("cut cells end in ~").contains("~");
        assertThat(screen).as("rows in compact units").contains("1.2T/9.9T", "9999/10000", "3d04h");
    }

    @Test
    void targetsPointAtEachEntrysFirstLineAndEachRunsRowInDrawingOrder() {
        Map<String, Object> json = summary(1, 2);
        var rendered = MonitorScreen.renderTargets(new MonitorScreen.State("http://ledger", NOW,
                MonitorScreen.Summary.from(json), NOW.toInstant(), null), MonitorScreen.Layout.snapshot(80, null));

        List<MonitorScreen.Target> targets = rendered.targets();
        assertThat(targets).hasSize(5);
        assertThat(targets).extracting(MonitorScreen.Target::line).isSorted();
        // The selection moves in the order the operator sees: the blocking kinds first, then the active runs.
        assertThat(targets.subList(0, 3)).extracting(t -> t.attention().kind()).containsExactly(
                MonitorScreen.Kind.PUBLISH_UNKNOWN, MonitorScreen.Kind.DEAD_DISPATCH, MonitorScreen.Kind.FAILED_RUN);
        List<String> lines = rendered.lines();
        assertThat(lines.get(targets.get(0).line())).startsWith("! PUBLISH_UNKNOWN");
        assertThat(lines.get(targets.get(1).line())).startsWith("! DEAD DISPATCH");
        assertThat(lines.get(targets.get(2).line())).startsWith("x FAILED_EXTRACT");
        for (MonitorScreen.Target run : targets.subList(3, 5)) {
            assertThat(run.attention()).isNull();
            assertThat(lines.get(run.line())).startsWith("A_VERY_LONG").contains("EXTRACTED_VALIDATED");
            assertThat(run.status()).isEqualTo("EXTRACTED_VALIDATED");
        }
        assertThat(lines.get(targets.get(3).line() - 1)).startsWith("JOB");
    }

    @Test
    void publishUnknownComesFirstThenDeadDispatchesThenFailedRuns() {
        String screen = String.join("\n", render(summary(1, 0), null, MonitorScreen.Layout.snapshot(80, null)));

        int publishUnknown = screen.indexOf("! PUBLISH_UNKNOWN");
        int dead = screen.indexOf("! DEAD DISPATCH  for 2h15m  VALIDATE_RUN");
        int failed = screen.indexOf("x FAILED_EXTRACT");
        assertThat(List.of(publishUnknown, dead, failed)).as(screen).doesNotContain(-1).isSorted();
        assertThat(screen).contains("for 2h15m", "2h15m ago", "ROW_COUNT_MISMATCH: line one line two mmm",
                "ACTIVE RUNS: none");
    }

    @Test
    void aDeadDispatchOfARunBeforePublishingAlsoOffersACancel() {
        Map<String, Object> stalled = attention("DEAD_DISPATCH", "EXTRACTED_VALIDATED", "refused");
        Map<String, Object> published = attention("DEAD_DISPATCH", "PUBLISHED", "refused");
        var json = Map.<String, Object>of("runsByStatus", Map.of(), "dispatchesByStatus", Map.of(),
                "attention", List.of(stalled, published), "activeRuns", List.of());
        String screen = String.join("\n", render(json, null, MonitorScreen.Layout.snapshot(120, null)));

        assertThat(MonitorCommandTest.commands(screen)).as(screen)
                .contains("loadgate cancel " + stalled.get("runId") + " --reason \"<why>\"")
                .noneMatch(command -> command.startsWith("loadgate cancel " + published.get("runId")));
    }

    @Test
    void aStuckRunComesWithItsFixAndASupersededFailureIsOneQuietLineLast() {
        Map<String, Object> superseded = attention("SUPERSEDED_FAILURE", "FAILED_PUBLISH", null);
        Map<String, Object> stuck = attention("STUCK_RUN", "PUBLISHING", null);
        stuck.put("reason", "PUBLISHING for 00:45:00 (threshold 00:30:00)");
        stuck.put("fix", "loadgate runs show " + stuck.get("runId"));
        Map<String, Object> extracting = attention("STUCK_RUN", "EXTRACTING", null);
        extracting.put("fix", "loadgate cancel " + extracting.get("runId") + " --reason \"<why>\"");
        var json = Map.<String, Object>of("runsByStatus", Map.of(), "dispatchesByStatus", Map.of(),
                "attention", List.of(superseded, stuck, extracting), "activeRuns", List.of());
        List<String> lines = render(json, null, MonitorScreen.Layout.snapshot(80, null));
        String screen = String.join("\n", lines);

        assertThat(lines).as(screen).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(79));
        assertThat(screen).contains("ATTENTION: 0 publish unknown, 0 dead dispatches, 2 stuck, 0 failed in 24 h",
                "! STUCK  for 2h15m", "threshold 00:30:00");
        assertThat(MonitorCommandTest.commands(screen)).as(screen)
                .contains("loadgate runs show " + stuck.get("runId"),
                        "loadgate cancel " + extracting.get("runId") + " --reason \"<why>\"")
                .noneMatch(command -> command.contains(superseded.get("runId").toString()));
        assertThat(screen.indexOf("- FAILED_PUBLISH")).as("superseded last").isGreaterThan(screen.indexOf("! STUCK"));
        assertThat(String.join("\n", render(Map.of("runsByStatus", Map.of(), "dispatchesByStatus", Map.of(),
                "attention", List.of(superseded), "activeRuns", List.of()), null,
                MonitorScreen.Layout.snapshot(80, null)))).contains("ATTENTION: nothing needs an operator");
    }

    @Test
    void aLiveScreenShowsTheFirstEntriesAndSaysHowManyMore() {
        var layout = new MonitorScreen.Layout(80, true, 5, 12, null, "every 5s; Ctrl-C quits");
        List<String> lines = render(summary(3, 20), null, layout);

        String screen = String.join("\n", lines);
        assertThat(screen).contains("... and 4 more: loadgate monitor --once | less", "... and 8 more: loadgate runs list",
                "every 5s; Ctrl-C quits");
        assertThat(screen.split("! PUBLISH_UNKNOWN", -1)).as("all three publish-unknown runs come first").hasSize(4);
        assertThat(screen).contains("\033[1;31mATTENTION: 3 publish unknown, 3 dead dispatches, 3 failed in 24 h\033[0m");
        assertThat(lines).allSatisfy(line -> assertThat(line.replaceAll("\033\\[[0-9;]*m", "").length()).as(line)
                .isLessThanOrEqualTo(79));
    }

    @Test
    void anUnreachableLedgerKeepsTheLastFiguresAndSaysHowOldTheyAre() {
        List<String> lines = render(summary(1, 1), "UNREACHABLE (cannot reach the ledger at https://a-rather-long-"
                + "ledger-host.example.org:8443: connection refused)", MonitorScreen.Layout.snapshot(80, null));

        assertThat(lines.get(1)).startsWith("ledger: UNREACHABLE (cannot reach").endsWith("~").hasSize(79);
        assertThat(lines.get(2)).isEqualTo("the figures below are from 2026-11-30 03:12:15 +00:00 (30s ago)");
        assertThat(String.join("\n", lines)).contains("! PUBLISH_UNKNOWN");

        List<String> nothingYet = MonitorScreen.render(new MonitorScreen.State("http://x", NOW, null, null,
                "UNREACHABLE"), MonitorScreen.Layout.snapshot(80, null));
        assertThat(nothingYet).hasSize(2);
    }

    @Test
    void anOlderLedgerWithoutKindsStillShowsPublishUnknownRuns() {
        Map<String, Object> old = new LinkedHashMap<>(attention("PUBLISH_UNKNOWN", "PUBLISH_UNKNOWN", null));
        old.remove("kind");
        String screen = String.join("\n", render(Map.of("attention", List.of(old)), null,
                MonitorScreen.Layout.snapshot(80, null)));

        assertThat(screen).contains("! PUBLISH_UNKNOWN", "loadgate resolve " + old.get("runId") + " --as PUBLISHED");
    }

    @ParameterizedTest
    @ValueSource(ints = {60, 80, 160})
    void noLineExceedsTheWidthAndEveryCommandIsWhole(int width) {
        String ledger = "https://a-rather-long-ledger-host.example.org:8443";
        Map<String, Object> json = summary(1, 3);
        for (MonitorScreen.Layout layout : List.of(MonitorScreen.Layout.snapshot(width, ledger),
                new MonitorScreen.Layout(width, true, 5, 12, ledger, "every 5s; Ctrl-C quits; all entries: loadgate"
                        + " monitor --once"))) {
            List<String> lines = render(json, "UNREACHABLE (connection refused)", layout).stream()
                    .map(line -> line.replaceAll("\033\\[[0-9;]*m", "")).toList();
            String screen = String.join("\n", lines);

            assertThat(lines).as(screen).allSatisfy(line -> assertThat(line.length()).as(line)
                    .isLessThan(width));
            List<String> expected = new ArrayList<>();
            for (Object entry : (List<?>) json.get("attention")) {
                Map<?, ?> a = (Map<?, ?>) entry;
                String run = (String) a.get("runId");
                switch ((String) a.get("kind")) {
                    case "PUBLISH_UNKNOWN" -> {
                        expected.add("loadgate resolve " + run + " --as PUBLISHED"
                                + " --reason \"snapshot <id> carries the run id\" --ledger " + ledger);
                        expected.add("loadgate resolve " + run + " --as FAILED_PUBLISH"
                                + " --reason \"no snapshot carries the run id\" --ledger " + ledger);
                    }
                    case "DEAD_DISPATCH" -> expected.add("loadgate dispatch resend " + run + " " + a.get("dispatchId")
                            + " --ledger " + ledger);
                    default -> expected.add("loadgate runs show " + run + " --ledger " + ledger);
                }
            }
            assertThat(MonitorCommandTest.commands(screen)).as(screen).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(String.join(" ", lines).replaceAll(" +", " ")).as("prose wraps rather than being cut")
                    .contains("Look in the target for a snapshot whose summary has loadgate.run-id = run.",
                            "ATTENTION: 1 publish unknown, 1 dead dispatches, 1 failed in 24 h",
                            "the figures below are from 2026-11-30 03:12:15 +00:00 (30s ago)");
        }
    }

    @Test
    void aLongReasonIsWholeOnAWideScreenAndCutOnANarrowOne() {
        String reason = "the staged row count differs from the source's for partition 0007 of 0008; the source table"
                + " changed during the snapshot";
        Map<String, Object> failed = new LinkedHashMap<>(attention("FAILED_RUN", "FAILED_STAGE_VALIDATION", null));
        failed.put("errorCode", null);
        failed.put("reason", reason);
        Map<String, Object> json = Map.of("attention", List.of(failed));

        List<String> wide = render(json, null, MonitorScreen.Layout.snapshot(160, null));
        List<String> narrow = render(json, null, MonitorScreen.Layout.snapshot(80, null));

        assertThat(reason).hasSizeGreaterThan(78).hasSizeLessThan(157);
        assertThat(wide).as(String.join("\n", wide)).contains("  " + reason);
        assertThat(narrow).as(String.join("\n", narrow))
                .contains(("  " + reason).substring(0, 78) + "~");
    }

    @Test
    void aWiderScreenGivesTheJobKeyMoreRoomInTheActiveRuns() {
        String at80 = row(render(summary(0, 1), null, MonitorScreen.Layout.snapshot(80, null)));
        String at160 = row(render(summary(0, 1), null, MonitorScreen.Layout.snapshot(160, null)));
        String at60 = row(render(summary(0, 1), null, MonitorScreen.Layout.snapshot(60, null)));

        // The other columns take 10 (KEY) + 19 (STATUS) + 10 (PARTS) + 9 (ROWS) + 5 (AGE) and five gaps of two.
        String rest = "~  2026-11-29  EXTRACTED_VALIDATED  9999/10000  1.2T/9.9T  3d04h";
        assertThat(at80).as("80: the job key gets what the status and counts leave").hasSize(79)
                .isEqualTo(LONG_JOB.substring(0, 79 - rest.length()) + rest);
        assertThat(at160).as("160: the job key gets the room").hasSize(159)
                .isEqualTo(LONG_JOB.substring(0, 159 - rest.length()) + rest);
        assertThat(at60).as("60: the text columns share the cut; the counts stay whole").hasSizeLessThan(60)
                .contains("9999/10000  1.2T/9.9T  3d04h");
    }

    private static String row(List<String> lines) {
        return lines.get(lines.indexOf(lines.stream().filter(l -> l.startsWith("JOB")).findFirst().orElseThrow()) + 1);
    }

    @Test
    void theWidthComesFromTheOptionThenColumnsThen80WithinBounds() {
        assertThat(MonitorCommand.width(null, null)).isEqualTo(80);
        assertThat(MonitorCommand.width(null, "132")).isEqualTo(132);
        assertThat(MonitorCommand.width(null, " 100 ")).isEqualTo(100);
        assertThat(MonitorCommand.width(null, "wide")).as("not a number: ignored").isEqualTo(80);
        assertThat(MonitorCommand.width(120, "200")).as("the option wins").isEqualTo(120);
        assertThat(MonitorCommand.width(null, "40")).as("narrower: 60").isEqualTo(60);
        assertThat(MonitorCommand.width(40, null)).isEqualTo(60);
        assertThat(MonitorCommand.width(null, "1000")).as("wider: 300").isEqualTo(300);
    }

    @Test
    void compactNumbersAndAges() {
        assertThat(List.of(MonitorScreen.compact(0), MonitorScreen.compact(999), MonitorScreen.compact(1000),
                MonitorScreen.compact(12_345), MonitorScreen.compact(999_999), MonitorScreen.compact(1_000_000),
                MonitorScreen.compact(123_456_789))).containsExactly("0", "999", "1.0k", "12.3k", "1.0M", "1.0M", "123M");
        assertThat(List.of(MonitorScreen.age(Duration.ofSeconds(59)), MonitorScreen.age(Duration.ofMinutes(59)),
                MonitorScreen.age(Duration.ofMinutes(61)), MonitorScreen.age(Duration.ofHours(49)),
                MonitorScreen.age(Duration.ofSeconds(-5)))).containsExactly("59s", "59m", "1h01m", "2d01h", "0s");
        assertThat(Instant.parse("2026-11-30T03:12:45Z")).isEqualTo(NOW.toInstant());
    }
}
