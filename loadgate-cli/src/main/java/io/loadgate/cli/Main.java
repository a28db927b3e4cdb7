package io.loadgate.cli;

import picocli.CommandLine;

/** The {@code loadgate} command. Errors reach the user as one line and a non-zero exit, never a stack trace. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        CommandLine cli = new CommandLine(new LoadgateCommand());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("loadgate: " + CliErrors.oneLine(e));
            org.slf4j.LoggerFactory.getLogger(Main.class).debug("command failed", e);
            if (e instanceof CliException ce) {
                return ce.exitCode();
            }
            if (e instanceof io.loadgate.worker.ledger.LedgerCallException call
                    && (call.isUnreachable() || call.isUnavailable())) {
                return LedgerOptions.EXIT_UNAVAILABLE;
            }
            return 1;
        });
        cli.setParameterExceptionHandler((e, args1) -> {
            CommandLine command = e.getCommandLine();
            command.getErr().println("loadgate: " + e.getMessage());
            command.getErr().println("Try '" + command.getCommandSpec().qualifiedName() + " --help'.");
            return 2;
        });
        return cli.execute(args);
    }
}
