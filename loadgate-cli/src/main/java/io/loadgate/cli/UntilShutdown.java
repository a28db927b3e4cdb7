package io.loadgate.cli;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/** Keeps a long-running command alive until the process is asked to stop (SIGTERM, Ctrl-C), then stops it cleanly. */
final class UntilShutdown {
    private UntilShutdown() {
    }

    /** Blocks until shutdown; {@code stop} runs in the shutdown hook, and the JVM exits once it returns. */
    static void await(Runnable stop) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.run();
            stopped.countDown();
        }, "loadgate-shutdown"));
        stopped.await();
    }

    /**
     * Blocks until shutdown, as {@link #await}, or until {@code failed} completes: then runs {@code stop} itself
     * (the hook is removed, so it runs once) and returns the failure, for the command to exit with.
     */
    static Optional<String> awaitOr(CompletableFuture<String> failed, Runnable stop) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.run();
            stopped.countDown();
        }, "loadgate-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        failed.thenRun(stopped::countDown);
        stopped.await();
        if (!failed.isDone()) {
            return Optional.empty();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook has run or is running: the process is stopping anyway.
            return Optional.of(failed.join());
        }
        stop.run();
        return Optional.of(failed.join());
    }
}
