package io.loadgate.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One process of the cluster (ledger, worker, submitter), its output in a log file, and the signals it can get. */
final class Child {
    final String name;
    final Path log;
    private final Process process;

    private Child(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    static Child start(String name, List<String> command, Map<String, String> environment, Path log)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new Child(name, log, builder.start());
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** kill -9: no shutdown hook runs, no socket is closed politely; the kernel closes them. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    /** SIGTERM, then SIGKILL if it has not ended within {@code grace}. */
    void stop(Duration grace) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        signal("CONT"); // a paused process cannot handle SIGTERM
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            kill9();
        }
    }

    /** The exit code, or null while it runs. */
    Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
    }

    boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void signal(String signal) throws IOException, InterruptedException {
        if (process.isAlive()) {
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
