package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.OperatorApi.Cancel;
import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * What Ctrl-C (SIGINT) and SIGTERM do while a command follows a run. The signals are taken from the JVM, so they do
 * not start its shutdown: a shutdown would stop the embedded PostgreSQL under the workers while a publish may be
 * under way. Instead the run is settled and the command returns normally:
 * <ul>
 *   <li>{@link Mode#FINISH_OR_CANCEL} (the run's workers are in this process): the run is cancelled unless it has
 *       claimed its publish, in which case the publish and target validation finish and report first; the command
 *       then exits 128 + the signal's number if the run was cancelled, else with the run's own code;</li>
 *   <li>{@link Mode#LEAVE} (remote workers, {@code --ledger}): the run goes on; one line says so, with the command
 *       that cancels it, and the command exits 128 + the signal's number at once;</li>
 *   <li>{@link Mode#CANCEL_AND_LEAVE} ({@code --ledger --cancel-on-interrupt}): the run is cancelled (or, when it
 *       has claimed its publish, left to finish, and the line says so), and the command exits at once.</li>
 * </ul>
 * A second signal before the run exists stops the command at once; once a run exists it only repeats what is
 * being waited for, since leaving then could strand the key.
 */
final class Interruption implements AutoCloseable {
    static final String REASON = "interrupted";

    enum Mode { FINISH_OR_CANCEL, LEAVE, CANCEL_AND_LEAVE }

    private final Mode mode;
    private LedgerClient operator;
    private final PrintStream err;
    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();
    private RunId runId;
    private Signal received;
    private boolean cancelled;

    private Interruption(Mode mode, PrintStream err) {
        this.mode = requireNonNull(mode, "mode is null");
        this.err = requireNonNull(err, "err is null");
    }

    /**
     * Takes SIGINT and SIGTERM until closed: as early as possible, since a signal the JVM takes starts its shutdown.
     * Unless {@link Mode#LEAVE}, {@link #cancelWith} must name the operator's client before the run starts.
     */
    static Interruption install(Mode mode) {
        Interruption interruption = new Interruption(mode, System.err);
        for (String name : List.of("INT", "TERM")) {
            Signal signal = new Signal(name);
            interruption.previous.add(Signal.handle(signal, interruption::received));
            interruption.signals.add(signal);
        }
        return interruption;
    }

    /** The client that cancels the run: one with the operator's token (the in-process ledger makes its own). */
    synchronized void cancelWith(LedgerClient operatorClient) {
        operator = requireNonNull(operatorClient, "operatorClient is null");
    }

    /** The run now exists; if a signal came first, it is acted on here and now. */
    void runStarted(RunId id) {
        Signal pending;
        synchronized (this) {
            if (mode != Mode.LEAVE && operator == null) {
                throw new IllegalStateException("no client to cancel run " + id + " with");
            }
            runId = requireNonNull(id, "id is null");
            pending = received;
        }
        if (pending != null) {
            act(id, pending);
        }
    }

    /** True once a signal came: a command that has not started its run yet should not start it. */
    synchronized boolean interrupted() {
        return received != null;
    }

    /** True when this process cancelled the run because of a signal. */
    synchronized boolean cancelledRun() {
        return cancelled;
    }

    /** 128 + the signal's number, as a shell reports a command stopped by it (130 for SIGINT, 143 for SIGTERM). */
    synchronized int exitCode() {
        return 128 + requireNonNull(received, "no signal came").getNumber();
    }

    private void received(Signal signal) {
        RunId id;
        boolean first;
        synchronized (this) {
            first = received == null;
            received = first ? signal : received;
            id = runId;
        }
        if (!first) {
            if (id == null) {
                err.println("loadgate: interrupted again before a run was created: stopping now");
                Runtime.getRuntime().exit(exitCode());
            }
            err.println("loadgate: still settling run " + id + " (leaving now could leave its key blocked);"
                    + " it ends by itself");
            return;
        }
        if (id == null) {
            err.println("loadgate: interrupted (SIG" + signal.getName() + ") before the run started: stopping (a run"
                    + " being created now is cancelled once it exists)");
            return;
        }
        act(id, signal);
    }

    private void act(RunId id, Signal signal) {
        String name = "SIG" + signal.getName();
        switch (mode) {
            case LEAVE -> {
                err.println("loadgate: interrupted (" + name + "); run " + id + " goes on without this command (a"
                        + " partition still reading this process's snapshot fails); stop it with: loadgate cancel "
                        + id + " --reason \"...\"");
                Runtime.getRuntime().exit(exitCode());
            }
            case CANCEL_AND_LEAVE -> {
                err.println("loadgate: interrupted (" + name + "); " + cancel(id).map(r -> r + "; it goes on: loadgate"
                        + " runs show " + id).orElse("run " + id + " is cancelled"));
                Runtime.getRuntime().exit(exitCode());
            }
            case FINISH_OR_CANCEL -> {
                Optional<String> refused = cancel(id);
                err.println("loadgate: interrupted (" + name + "); " + refused.map(r -> r + "; waiting for it to end")
                        .orElse("run " + id + " is cancelled; stopping"));
            }
        }
    }

    /** Cancels the run; empty when it was, else why not (it claimed its publish, or has ended). */
    private Optional<String> cancel(RunId id) {
        LedgerClient client;
        synchronized (this) {
            client = operator;
        }
        try {
            client.cancelRun(id, new Cancel(REASON));
            synchronized (this) {
                cancelled = true;
            }
            return Optional.empty();
        } catch (LedgerCallException e) {
            return Optional.of("run " + id + " could not be cancelled (" + CliErrors.oneLine(e) + ")");
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < signals.size(); i++) {
            Signal.handle(signals.get(i), previous.get(i));
        }
    }
}
