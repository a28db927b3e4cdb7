package io.loadgate.server.dispatch;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A wait that can be cut short. A {@link #wake()} that arrives while nobody waits is kept until the next
 * {@link #await}, so a notification that lands while a loop is busy querying is never lost: the loop just runs
 * its next pass at once.
 */
public final class Waiter {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean woken;

    public void wake() {
        lock.lock();
        try {
            woken = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until woken or {@code timeout} has passed; returns true when woken. Clears the wake-up either way. */
    public boolean await(Duration timeout) throws InterruptedException {
        long remaining = Math.max(0, timeout.toNanos());
        lock.lock();
        try {
            while (!woken && remaining > 0) {
                remaining = changed.awaitNanos(remaining);
            }
            boolean result = woken;
            woken = false;
            return result;
        } finally {
            lock.unlock();
        }
    }
}
