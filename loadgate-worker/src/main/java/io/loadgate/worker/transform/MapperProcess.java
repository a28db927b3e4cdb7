package io.loadgate.worker.transform;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.TransformStep;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a job's mapper over one partition's lines, as Hadoop Streaming runs a mapper: the lines go to its stdin,
 * its rows come from its stdout. After the rows of each input line (none, one or several) the program writes a line
 * that starts with the record separator U+001E; text after it on that line is why the line gave no row. That mark is
 * what makes the counts exact: lines read = lines mapped (marks), rows emitted = the other lines.
 *
 * <p>Threads: a writer feeds stdin from {@link Lines} (so the source is read on it); the caller reads stdout through
 * {@link #nextRow}; a drainer keeps the last lines of stderr; a watchdog kills the process tree when the program owes
 * something and for the timeout neither takes a line nor gives one. Nothing is buffered beyond the pipes, a 64 KiB
 * write buffer and one output line: a slow caller stops the program's output, which stops its input, which stops the
 * writer (backpressure through the pipes).
 *
 * <p>Not thread-safe: one caller reads it; {@link #close} kills what is still running.
 */
public final class MapperProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MapperProcess.class);
    static final char END_OF_LINE = '\u001e';
    static final int MAX_REASONS = 20;
    static final String OTHER_REASONS = "(other reasons)";
    static final String NO_REASON = "the mapper gave no row";
    private static final int MAX_REASON_LENGTH = 200;
    private static final int STDERR_TAIL_LINES = 20;
    private static final int STDERR_LINE_LENGTH = 500;
    private static final int STDIN_BUFFER = 64 * 1024;
    /**
     * The worker's variables a mapper gets, and no other: a worker serves every job, and its environment holds their
     * secrets (source.password_env, hmac.key_env), which one job's program must not read.
     */
    static final Set<String> PASSED_ENVIRONMENT = Set.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
            "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "PYTHONIOENCODING");

    /** The lines to map, pulled by the writer thread; a RuntimeException it throws fails the partition as itself. */
    @FunctionalInterface
    public interface Lines {
        /** The next line, or null after the last; a failure to read is a RuntimeException. */
        String next();
    }

    private final String where;
    private final List<String> command;
    private final Duration timeout;
    private final Process process;
    private final BufferedReader stdout;
    private final Thread writer;
    private final Thread drainer;
    private final Thread watchdog;
    private final ArrayDeque<String> stderrTail = new ArrayDeque<>();
    private final Map<String, Long> skipReasons = new HashMap<>();

    // Shared with the writer and the watchdog.
    private volatile long linesWritten;
    private volatile boolean writerInSource;
    private volatile RuntimeException inputFailure;
    private volatile boolean readerWaiting;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean timedOut;
    private volatile boolean done;
    private volatile long stderrLines;

    private long linesMapped;
    private long linesSkipped;
    private long rowsEmitted;
    private long rowsOfLine;
    private MapperCounts counts;

    private MapperProcess(TransformStep.Mapper spec, String where, Lines input) {
        this.where = where;
        this.command = spec.command();
        this.timeout = spec.timeoutDuration();
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().keySet().retainAll(PASSED_ENVIRONMENT);
            this.process = builder.start();
        } catch (IOException e) {
            throw new MapperFailedException(MapperFailedException.Reason.MAPPER_START,
                    "mapper " + command + " cannot start: " + e.getMessage(), e);
        }
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.writer = daemon(() -> feed(input), "stdin");
        this.drainer = daemon(this::drainStderr, "stderr");
        this.watchdog = daemon(this::watch, "watchdog");
        writer.start();
        drainer.start();
        watchdog.start();
    }

    /**
     * Starts {@code spec}'s program on {@code input}; {@code where} names the partition in the log.
     *
     * @throws MapperFailedException when the program cannot start
     */
    public static MapperProcess start(TransformStep.Mapper spec, String where, Lines input) {
        return new MapperProcess(requireNonNull(spec, "spec is null"), requireNonNull(where, "where is null"),
                requireNonNull(input, "input is null"));
    }

    private Thread daemon(Runnable body, String role) {
        Thread thread = new Thread(body, "loadgate-mapper-" + role + "-" + where);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * The next row the program wrote, or null once it has exited 0 having mapped every line; then {@link #counts}
     * holds what it did. A line that gave no row is counted as skipped, with its reason.
     *
     * @throws MapperFailedException when the program fails (non-zero exit, timeout, broken framing)
     * @throws RuntimeException the failure of {@link Lines} itself, when reading the input failed
     */
    public String nextRow() {
        if (counts != null) {
            return null;
        }
        while (true) {
            String line = readLine();
            if (line == null) {
                finish();
                return null;
            }
            if (line.isEmpty() || line.charAt(0) != END_OF_LINE) {
                rowsOfLine++;
                rowsEmitted++;
                return line;
            }
            endOfLine(line.substring(1).strip());
        }
    }

    /** The 1-based number, among the partition's lines, of the input line the last row came from. */
    public long lineNumber() {
        return linesMapped + 1;
    }

    /** What the program did; only once {@link #nextRow} returned null. */
    public MapperCounts counts() {
        if (counts == null) {
            throw new IllegalStateException("the mapper has not finished");
        }
        return counts;
    }

    private void endOfLine(String reason) {
        linesMapped++;
        if (linesMapped > linesWritten) {
            // Read after the count: the writer counts a line before the program can have it.
            throw failure(MapperFailedException.Reason.MAPPER_PROTOCOL, "mapper " + command + " ended line "
                    + linesMapped + " but was given " + linesWritten + " lines; each input line gets one end mark"
                    + " (a line starting with U+001E)");
        }
        if (rowsOfLine == 0) {
            linesSkipped++;
            String key = reason.isEmpty() ? NO_REASON
                    : reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH - 3) + "...";
            if (!skipReasons.containsKey(key) && skipReasons.size() >= MAX_REASONS) {
                key = OTHER_REASONS;
            }
            skipReasons.merge(key, 1L, Long::sum);
        } else if (!reason.isEmpty()) {
            throw failure(MapperFailedException.Reason.MAPPER_PROTOCOL, "mapper " + command + " gave line "
                    + linesMapped + " " + rowsOfLine + " rows and a reason for giving none");
        }
        rowsOfLine = 0;
    }

    private String readLine() {
        lastProgress = System.nanoTime();
        readerWaiting = true;
        try {
            String line = stdout.readLine();
            lastProgress = System.nanoTime();
            return line;
        } catch (IOException e) {
            // The watchdog's kill closes the pipe under a blocked read; finish() says why.
            return null;
        } finally {
            readerWaiting = false;
        }
    }

    /** The end of the program's output: judge how it ended. */
    private void finish() {
        int exit;
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
                killTree();
            }
            exit = process.waitFor();
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            killTree();
            throw new IllegalStateException("interrupted while waiting for mapper " + command, e);
        }
        done = true;
        if (inputFailure != null) {
            logStderr(true);
            throw inputFailure;
        }
        if (timedOut) {
            throw failure(MapperFailedException.Reason.MAPPER_TIMEOUT, "mapper " + command + " neither took input"
                    + " nor gave output for " + timeout + " while it owed some (" + linesMapped + " of "
                    + linesWritten + " lines mapped); it was killed");
        }
        if (exit != 0) {
            throw failure(MapperFailedException.Reason.MAPPER_EXIT, "mapper " + command + " exited with code " + exit
                    + " after mapping " + linesMapped + " of " + linesWritten + " lines given to it");
        }
        if (rowsOfLine > 0) {
            throw failure(MapperFailedException.Reason.MAPPER_PROTOCOL, "mapper " + command + " gave " + rowsOfLine
                    + " rows after its last end mark (a line starting with U+001E ends each input line's rows)");
        }
        if (linesMapped != linesWritten) {
            throw failure(MapperFailedException.Reason.MAPPER_PROTOCOL, "mapper " + command + " exited 0 having"
                    + " mapped " + linesMapped + " of " + linesWritten + " lines");
        }
        counts = new MapperCounts(linesWritten, linesSkipped, rowsEmitted, skipReasons);
        logStderr(false);
    }

    private MapperFailedException failure(MapperFailedException.Reason reason, String message) {
        done = true;
        killTree();
        logStderr(true);
        return new MapperFailedException(reason, message, null);
    }

    private void feed(Lines input) {
        try (OutputStream stdin = new BufferedOutputStream(process.getOutputStream(), STDIN_BUFFER)) {
            while (true) {
                writerInSource = true;
                String line;
                try {
                    line = input.next();
                } finally {
                    writerInSource = false;
                }
                lastProgress = System.nanoTime();
                if (line == null) {
                    return;
                }
                linesWritten++;
                stdin.write(line.getBytes(StandardCharsets.UTF_8));
                stdin.write('\n');
                lastProgress = System.nanoTime();
            }
        } catch (IOException e) {
            // The program closed its stdin or died: its exit code and its end marks tell the reader what happened.
            LOG.debug("mapper {} for {} stopped taking input: {}", command, where, e.getMessage());
        } catch (RuntimeException e) {
            inputFailure = e;
            killTree();
        }
    }

    /**
     * Only while the reader waits for output and the writer is not waiting for the source does silence count: then
     * the program owes a line or the end of one, and neither takes input nor gives output.
     */
    private void watch() {
        long limit = timeout.toNanos();
        long pause = Math.min(limit / 4, TimeUnit.SECONDS.toNanos(1));
        while (!done && process.isAlive()) {
            LockSupport.parkNanos(pause);
            if (readerWaiting && !writerInSource && System.nanoTime() - lastProgress > limit) {
                timedOut = true;
                LOG.warn("mapper {} for {} was silent for {}: killing it and its children", command, where, timeout);
                killTree();
                return;
            }
        }
    }

    private void drainStderr() {
        try (InputStream in = process.getErrorStream()) {
            byte[] line = new byte[STDERR_LINE_LENGTH];
            int length = 0;
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') {
                    keepStderr(new String(line, 0, length, StandardCharsets.UTF_8));
                    length = 0;
                } else if (length < line.length) {
                    line[length++] = (byte) b;
                }
            }
            if (length > 0) {
                keepStderr(new String(line, 0, length, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The process is gone; what was read is kept.
        }
    }

    private void keepStderr(String line) {
        synchronized (stderrTail) {
            stderrLines++;
            if (stderrTail.size() == STDERR_TAIL_LINES) {
                stderrTail.removeFirst();
            }
            stderrTail.addLast(line);
        }
    }

    /** The program's stderr goes to the log only, as a bounded tail: it may hold what no error message may. */
    private void logStderr(boolean failed) {
        try {
            drainer.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<String> tail;
        synchronized (stderrTail) {
            tail = new ArrayList<>(stderrTail);
        }
        if (tail.isEmpty()) {
            return;
        }
        String text = "mapper " + command + " for " + where + " wrote " + stderrLines + " lines to stderr; the last "
                + tail.size() + ":\n  " + String.join("\n  ", tail);
        if (failed) {
            LOG.warn(text);
        } else {
            LOG.info(text);
        }
    }

    private void killTree() {
        // Children first, found while the parent lives: once it is gone they are no longer its descendants.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /**
     * Kills what still runs and waits (a little) for the writer to stop: once this returns, what the writer left
     * open in its {@link Lines} (the file it was reading) is the caller's to close.
     */
    @Override
    public void close() {
        done = true;
        if (process.isAlive()) {
            killTree();
        }
        try {
            stdout.close();
        } catch (IOException e) {
            // Killed or finished either way.
        }
        try {
            // A killed program's stdin fails the writer's next write at once; only a source read can hold it up.
            writer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
