package io.loadgate.spark;

import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The ledger as one attempt sees it when its executor hangs or dies after its first chunk report: a STALL attempt
 * stops beating and blocks before its next report until Spark kills it (or a minute passes); a DIE attempt throws
 * {@link ExecutorLoss} and makes no call after it, as a dead JVM makes none: the step's report of the Error does not get
 * through, and its beats stop. Every other call goes through.
 */
final class StallingLedger extends ForwardingLedgerClient {
    enum Fault { STALL, DIE }

    /** Not an Exception, so that it passes the extraction's catches as a dead JVM's end would. */
    static final class ExecutorLoss extends Error {
        ExecutorLoss() {
            super("executor lost (test)");
        }
    }

    private final Fault fault;
    private volatile boolean struck;
    private volatile boolean dead;

    StallingLedger(LedgerClient delegate, Fault fault) {
        super(delegate);
        this.fault = fault;
    }

    @Override
    protected <T> T around(String method, Supplier<T> call) {
        if (dead) {
            throw new ExecutorLoss();
        }
        switch (method) {
            case "reportChunk" -> {
                if (struck) {
                    strike();
                }
                T result = call.get();
                struck = true;
                return result;
            }
            case "heartbeat" -> {
                if (struck) {
                    throw new IllegalStateException("no beat gets through from a hung executor (test)");
                }
                return call.get();
            }
            default -> {
                return call.get();
            }
        }
    }

    private void strike() {
        if (fault == Fault.STALL) {
            try {
                TimeUnit.MINUTES.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("killed by Spark while stalled", e);
            }
        }
        dead = true;
        throw new ExecutorLoss();
    }
}
