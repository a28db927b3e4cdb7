package io.loadgate.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A Java main run in a JVM of its own, on (part of) the tests' class path and with the tests' {@code --add-opens}
 * and {@code -D} options (Spark needs the former in any JVM it runs in), its standard output collected.
 */
final class ChildJvm {
    /** How the child ended: its exit code and its standard output. */
    record Ended(int exit, List<String> output) {
    }

    private ChildJvm() {
    }

    /** Runs {@code mainClass} with {@code args} on the tests' class path entries {@code classPath} accepts. */
    static Ended run(Predicate<String> classPath, String mainClass, List<String> args)
            throws IOException, InterruptedException {
        Process child = start(classPath, mainClass, args);
        List<String> output = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                output.add(line);
            }
        }
        if (!child.waitFor(150, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new IllegalStateException(mainClass + " in a child JVM did not end within 150 s");
        }
        return new Ended(child.exitValue(), List.copyOf(output));
    }

    /** Starts {@code mainClass} as {@link #run} does, for a caller that ends it (a test that kills it mid-load). */
    static Process start(Predicate<String> classPath, String mainClass, List<String> args) throws IOException {
        String entries = Arrays.stream(System.getProperty("surefire.test.class.path",
                        System.getProperty("java.class.path")).split(java.io.File.pathSeparator))
                .filter(classPath).collect(Collectors.joining(java.io.File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("-D") && !a.startsWith("-Dbasedir")
                        || a.startsWith("-XX:+IgnoreUnrecognized")).toList());
        command.addAll(List.of("-cp", entries, mainClass));
        command.addAll(args);
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
