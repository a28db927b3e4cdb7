package io.loadgate.ledger.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * RunTransitions is the single point where a run changes state and writes its RUN_STATUS event. A statement
 * elsewhere in the ledger that sets load_run's status would move a run without its event; this reads the ledger's
 * sources (the module the tests run in) and names any such statement.
 */
class RunTransitionsBypassTest {
    /** An UPDATE of load_run (with or without an alias) and its SET list, up to the WHERE. */
    private static final Pattern UPDATE_RUN = Pattern.compile(
            "UPDATE\\s+load_run\\b(?:\\s+(?!SET\\b)\\w+)?\\s+SET\\b((?:(?!\\bWHERE\\b).)*)",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern SETS_STATUS = Pattern.compile("(?<![\\w.])status\\s*=", Pattern.CASE_INSENSITIVE);
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Path SINGLE_POINT = SOURCES.resolve("io/loadgate/ledger/run/RunTransitions.java");

    @Test
    void onlyRunTransitionsSetsARunsStatus() {
        assertThat(statusWriters(SINGLE_POINT)).as("the check finds RunTransitions' own statement").isNotEmpty();
        List<String> bypasses;
        try (Stream<Path> files = Files.walk(SOURCES)) {
            bypasses = files.filter(f -> f.toString().endsWith(".java") && !f.equals(SINGLE_POINT))
                    .flatMap(f -> statusWriters(f).stream().map(sql -> f + ": " + sql)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(bypasses).as("statements that set load_run.status outside RunTransitions").isEmpty();
    }

    private static List<String> statusWriters(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = UPDATE_RUN.matcher(text);
        return m.results().filter(r -> SETS_STATUS.matcher(r.group(1)).find())
                .map(r -> r.group().replaceAll("\\s+", " ")).toList();
    }
}
