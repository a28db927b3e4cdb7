package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A load the monitor started: {@code loadgate load} of a run's job spec, as the ledger keeps it in the run's
 * parameters, for one business key, in a child process of this distribution that outlives the monitor. The spec and
 * the child's output are files under {@code $LOADGATE_HOME/monitor/}, readable by their owner only: the source's
 * password and an hmac key are named as {@code *_env} variables (read from this environment), but a
 * {@code target.catalog} may carry {@code jdbc.password} or {@code credential}, and a JDBC URL a {@code password=},
 * as the job's author wrote them.
 */
final class MonitorLoad {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS")
            .withZone(ZoneOffset.UTC);
    private static final Pattern RUN_SUMMARY = Pattern.compile(
            "Run [0-9a-f-]{36}  [A-Z_]+  \\(");
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final String jobKey;
    private final String businessKey;
    private final Path log;
    private final Process process;
    private boolean reported;

    private MonitorLoad(String jobKey, String businessKey, Path log, Process process) {
        this.jobKey = requireNonNull(jobKey, "jobKey is null");
        this.businessKey = requireNonNull(businessKey, "businessKey is null");
        this.log = requireNonNull(log, "log is null");
        this.process = requireNonNull(process, "process is null");
    }

    /**
     * Writes {@code yaml} to a new file under {@code dir} and starts {@code loadgate load} of it with {@code options}
     * ({@code --ledger}, {@code --token-file}) in this process's environment, where the source's password variables
     * are (missing, the load fails at once with its own line in the log).
     */
    static MonitorLoad start(Path dir, String jobKey, String businessKey, String yaml, List<String> options)
            throws IOException {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        String name = safe(jobKey) + "_" + safe(businessKey) + "_" + STAMP.format(Instant.now());
        Path spec = ownerOnly(dir.resolve(name + ".yaml"));
        Files.writeString(spec, yaml);
        Path log = ownerOnly(dir.resolve(name + ".log"));
        List<String> args = new ArrayList<>(List.of("load", spec.toString(), "--business-key", businessKey));
        args.addAll(options);
        List<String> command = new ArrayList<>();
        // A session of its own: the hangup of the monitor's terminal must not end a load holding its snapshot.
        if (Files.isExecutable(SETSID)) {
            command.add(SETSID.toString());
        }
        command.addAll(OwnCommand.of(args));
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new MonitorLoad(jobKey, businessKey, log, process);
    }

    long pid() {
        return process.pid();
    }

    String started() {
        return "Load of " + jobKey + " / " + businessKey + " started: pid " + pid() + ", log " + log;
    }

    /**
     * Once, when the child has ended: its exit code and its run's summary line ({@link RunReport}'s first), or the
     * log's last line when it printed none (a refusal, a bad spec: the one line it ends with); null before.
     */
    String endedOnce() {
        if (reported || process.isAlive()) {
            return null;
        }
        reported = true;
        return "Load of " + jobKey + " / " + businessKey + " (pid " + pid() + ") ended, exit " + process.exitValue()
                + ": " + resultLine();
    }

    private String resultLine() {
        try {
            List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
            // The report's last line is a table row of its metrics, which says nothing alone.
            return lines.stream().filter(l -> RUN_SUMMARY.matcher(l).lookingAt()).reduce((a, b) -> b)
                    .or(() -> lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(lines.size() - 1)))
                    .map(String::strip).orElse("(no output)");
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + CliErrors.oneLine(e) + ")";
        }
    }

    private static Path ownerOnly(Path file) throws IOException {
        return Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }

    /** A job or business key as part of a file name. */
    private static String safe(String text) {
        return text.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
