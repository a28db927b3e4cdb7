package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code loadgate} process started as bin/loadgate starts it (the test JVM's own class path), on its own
 * {@code LOADGATE_HOME}, its stdout and stderr in files under the test's directory.
 */
record CliProcess(Process process, Path out, Path err) {
    private static final Pattern RUN_LINE = Pattern.compile("Run ([0-9a-f-]{36}):");
    /**
     * Whether this process ignores SIGINT, as a background job of a non-interactive shell does (a CI script that
     * starts the suite with {@code &}). Children inherit that, and a JVM that starts ignoring SIGINT takes no handler
     * for it ({@code Signal.handle} answers SIG_IGN): a test's Ctrl-C would reach a child that cannot hear it.
     */
    private static final boolean SIGINT_IGNORED = sigintIgnored();

    static CliProcess start(Path dir, Path loadgateHome, String... args) throws IOException {
        return start(dir, loadgateHome, Map.of(), args);
    }

    /** {@code environment} adds variables ({@code LOADGATE_SERVER__PORT=0}, say). */
    static CliProcess start(Path dir, Path loadgateHome, Map<String, String> environment, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(OwnCommand.of(List.of(args)));
        if (SIGINT_IGNORED) {
            // coreutils' env puts SIGINT's default back for the child (a user's Ctrl-C reaches a foreground command).
            command.addAll(0, List.of("env", "--default-signal=INT"));
        }
        String name = UUID.randomUUID().toString();
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // Any other LOADGATE_ variable of the test's environment would be read as configuration.
        builder.environment().keySet().removeIf(k -> k.startsWith("LOADGATE_"));
        builder.environment().put("LOADGATE_HOME", loadgateHome.toString());
        // Test homes run side by side: each embedded PostgreSQL on a free port, unless a test asks for one.
        builder.environment().put("LOADGATE_DATABASE__EMBEDDED_PORT", "0");
        builder.environment().putAll(environment);
        return new CliProcess(builder.start(), out, err);
    }

    private static boolean sigintIgnored() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    // Bit n - 1 stands for signal n; SIGINT is 2.
                    return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 0b10) != 0;
                }
            }
        } catch (IOException e) {
            // Not Linux: nothing to say, nothing put back.
        }
        return false;
    }

    String stdout() {
        return read(out);
    }

    String stderr() {
        return read(err);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The run this {@code load} created, once it has said so. */
    UUID runId() {
        Matcher m = RUN_LINE.matcher(stdout());
        return m.find() ? UUID.fromString(m.group(1)) : null;
    }

    void signal(String name) throws Exception {
        assertThat(process.isAlive()).as("child alive before SIG" + name + "\n" + this).isTrue();
        assertThat(new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor())
                .isZero();
    }

    int exit() throws InterruptedException {
        return exit(Duration.ofSeconds(180));
    }

    /** The exit status, waiting up to {@code limit} (a command that starts more JVMs takes longer on a busy CPU). */
    int exit(Duration limit) throws InterruptedException {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child did not exit\n" + this);
        }
        return process.exitValue();
    }

    @Override
    public String toString() {
        return "--- stdout\n" + stdout() + "--- stderr\n" + stderr();
    }
}
