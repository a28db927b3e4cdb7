package io.loadgate.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code loadgate} command line of this very distribution, to start another {@code loadgate} process: this JVM's
 * java, its options (bin/loadgate's {@code LOADGATE_JAVA_OPTS}: heap, trust store) and its class path.
 */
final class OwnCommand {
    private OwnCommand() {
    }

    static List<String> of(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // A debugger agent listens on a port this JVM already holds: the child would not start.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> !a.startsWith("-agentlib:jdwp") && !a.startsWith("-Xrunjdwp"))
                .forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        return command;
    }
}
