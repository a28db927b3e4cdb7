package io.loadgate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code jcmd} of the JDK running the bench, against a JVM on this machine (the bench's own, or a worker's). */
final class Jcmd {
    // "java.ci.totalTime=528166884" (ticks of sun.os.hrt.frequency per second).
    private static final Pattern COUNTER = Pattern.compile("^([\\w.]+)=(\\d+)$", Pattern.MULTILINE);

    private Jcmd() {
    }

    /** The command's output; a failure (the process gone, a refused attach) is an IOException saying so. */
    static String run(long pid, String... command) throws IOException, InterruptedException {
        Path jcmd = Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jcmd");
        List<String> line = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /**
     * The JIT's work in a JVM so far, from its performance counters: methods compiled, and the time its compiler
     * threads spent compiling them (CPU the load's own threads could not have while those ran on the same cores).
     */
    record Jit(long compiles, double millis) {
        static Jit of(long pid) throws IOException, InterruptedException {
            String out = run(pid, "PerfCounter.print");
            long compiles = -1;
            long ticks = -1;
            long frequency = -1;
            Matcher m = COUNTER.matcher(out);
            while (m.find()) {
                switch (m.group(1)) {
                    case "sun.ci.totalCompiles" -> compiles = Long.parseLong(m.group(2));
                    case "java.ci.totalTime" -> ticks = Long.parseLong(m.group(2));
                    case "sun.os.hrt.frequency" -> frequency = Long.parseLong(m.group(2));
                    default -> {
                    }
                }
            }
            if (compiles < 0 || ticks < 0 || frequency <= 0) {
                throw new IOException("no JIT counters in jcmd " + pid + " PerfCounter.print");
            }
            return new Jit(compiles, ticks * 1e3 / frequency);
        }

        Jit since(Jit before) {
            return new Jit(compiles - before.compiles, millis - before.millis);
        }

        /** "N compilations, X ms" for each of {@code loads}. */
        String perLoad(int loads) {
            return "%,.0f compilations, %,.0f ms".formatted(compiles / (double) loads, millis / loads);
        }
    }
}
