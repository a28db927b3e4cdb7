package io.loadgate.cli;

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
}
