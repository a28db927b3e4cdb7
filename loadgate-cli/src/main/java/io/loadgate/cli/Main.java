package io.loadgate.cli;

import picocli.CommandLine;

/** The {@code loadgate} command. Errors reach the user as one line and a non-zero exit, never a stack trace. */
public final class Main {
    /**
     * The JDK HTTP client's keep-alive for an idle connection, in seconds: below the 30 s after which the ledger's
     * HTTP server (Jetty's default) closes one. The client's own default is 1,200 s, so it may send on a connection
     * at the moment the server closes it; the request then fails ("header parser received no bytes"), and a POST the
     * ledger client must not repeat by itself (an operator's resolve) fails outright. Read when the client's class
     * loads, so set before any request.
     */
    private static final String HTTP_KEEPALIVE_SECONDS = "20";

    private Main() {
    }

    public static void main(String[] args) {
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", HTTP_KEEPALIVE_SECONDS);
        }
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
