package io.loadgate.cli;

import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine.Option;

/** How the operator commands reach the ledger: {@code --ledger}, {@code --token-file}, {@code --json}. */
final class LedgerOptions {
    static final String DEFAULT_LEDGER = "http://127.0.0.1:8080";
    /** A command line or setup problem found before any call. */
    static final int EXIT_USAGE = 2;
    /** The ledger answered and refused. */
    static final int EXIT_REFUSED = 1;
    /** No answer from the ledger, or its database is down: try again later. */
    static final int EXIT_UNAVAILABLE = 3;

    /** An interactive command should fail within seconds, not wait out a worker's patience. */
    private static final LedgerClientConfig.Retry RETRY =
            new LedgerClientConfig.Retry(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofSeconds(1));

    @Option(names = "--ledger", paramLabel = "URL",
            description = "the ledger's base URL (default: the loadgate server running on $LOADGATE_HOME, else "
                    + DEFAULT_LEDGER + ")")
    String ledger;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "the token file: worker=/operator= lines, or just one token (default: $LOADGATE_HOME/tokens)")
    Path tokenFile;

    @Option(names = "--json", description = "print JSON for scripts instead of tables")
    boolean json;

    enum Role {
        WORKER("worker"),
        OPERATOR("operator"),
        /** Reads only: the viewer token, or the worker token when the file has no viewer line. */
        READER("viewer", "worker");

        final List<String> tokenRoles;

        Role(String... tokenRoles) {
            this.tokenRoles = List.of(tokenRoles);
        }

        String label() {
            return String.join(" or ", tokenRoles);
        }
    }

    String ledgerUrl() {
        if (ledgerGiven()) {
            return ledger;
        }
        return new io.loadgate.server.LoadgateHome(io.loadgate.server.config.ConfigLoader.home(System.getenv()))
                .runningServer().map(io.loadgate.server.LoadgateHome.RunningServer::url).orElse(DEFAULT_LEDGER);
    }

    boolean ledgerGiven() {
        return ledger != null;
    }

    Path tokenFile() {
        if (tokenFile != null) {
            return tokenFile;
        }
        return io.loadgate.server.config.ConfigLoader.home(System.getenv()).resolve("tokens");
    }

    LedgerClient client(Role role) {
        return client(role, RETRY);
    }

    /**
     * For a command that moves data (a worker, or a submitter holding a snapshot): the patient retry of
     * {@code --ledger-retry-window}, since giving up costs a reissued partition or a run whose snapshot is gone.
     */
    LedgerClient workerClient(LedgerRetryOption retry) {
        return client(Role.WORKER, retry.retry());
    }

    private LedgerClient client(Role role, LedgerClientConfig.Retry retry) {
        LedgerToken token = token(role);
        LedgerClientConfig config;
        try {
            config = LedgerClientConfig.builder(ledgerUrl(), token).retry(retry).build();
        } catch (IllegalArgumentException e) {
            throw new CliException("--ledger: " + e.getMessage(), EXIT_USAGE);
        }
        return HttpLedgerClient.create(config);
    }

    private LedgerToken token(Role role) {
        Path file = tokenFile();
        RuntimeException first = null;
        for (String tokenRole : role.tokenRoles) {
            try {
                return LedgerToken.fromFile(file, tokenRole);
            } catch (UncheckedIOException | IllegalArgumentException e) {
                first = first == null ? e : first;
                if (e instanceof UncheckedIOException) {
                    break;
                }
            }
        }
        throw new CliException("no " + role.label() + " token: " + CliErrors.oneLine(first) + " (use --token-file)",
                EXIT_USAGE);
    }

    /** Runs one ledger call and turns its failure into the one line the user sees. */
    <T> T call(LedgerClient client, Function<LedgerClient, T> call) {
        try {
            return call.apply(client);
        } catch (LedgerCallException e) {
            throw explain(e);
        }
    }

    CliException explain(LedgerCallException e) {
        if (e.isUnreachable()) {
            return new CliException(e.ledgerMessage() + "; is it running? Pass --ledger URL if it is elsewhere",
                    EXIT_UNAVAILABLE);
        }
        if (e.isOutcomeUnknown()) {
            return new CliException(e.ledgerMessage() + "; check with 'loadgate runs show RUN_ID'", EXIT_UNAVAILABLE);
        }
        if (e.isUnauthenticated()) {
            return new CliException("the ledger refused the token from " + tokenFile() + " (401 " + e.code() + ")",
                    EXIT_REFUSED);
        }
        String line = e.ledgerMessage() + " (" + e.status() + " " + e.code() + ")";
        return new CliException(line, e.status() == 503 ? EXIT_UNAVAILABLE : EXIT_REFUSED);
    }

    /** With {@code --json}, {@code value} as JSON for scripts; else what {@code text} writes for a person. */
    void print(PrintWriter out, Object value, Consumer<PrintWriter> text) {
        if (json) {
            out.println(toJson(value));
        } else {
            text.accept(out);
        }
        out.flush();
    }

    /**
     * A job key or business key the user typed, null when none was given; a bad one exits 1, as it did when only the
     * ledger checked it (422 REQUEST_INVALID).
     */
    static <T> T key(String label, String text, Function<String, T> parse) {
        try {
            return text == null ? null : parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw new CliException(label + ": " + e.getMessage(), EXIT_REFUSED);
        }
    }

    static RunId runId(String label, String text) {
        return new RunId(uuid(label, text));
    }

    static UUID uuid(String label, String text) {
        try {
            UUID id = UUID.fromString(text);
            if (id.toString().equalsIgnoreCase(text)) {
                return id;
            }
        } catch (IllegalArgumentException e) {
            // reported below
        }
        throw new CliException(label + " must be a UUID, got '" + text + "'", EXIT_USAGE);
    }

    static String toJson(Object value) {
        try {
            return HttpLedgerClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot print " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }
}
