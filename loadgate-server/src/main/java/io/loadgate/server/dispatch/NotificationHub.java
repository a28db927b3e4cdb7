package io.loadgate.server.dispatch;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Fans the database's {@code loadgate_dispatch} notifications out to whoever waits for new dispatches: the push
 * dispatcher and every long-polling {@code POST /v1/dispatches/lease}. A notification's payload is
 * {@code TYPE:executor}; each registration says which payloads concern it.
 *
 * <p>A wake-up only means "look again": waiters re-query the ledger, so a spurious wake-up costs one query and a
 * missed one is covered by the waiter's own timeout.
 */
public final class NotificationHub {
    private final Set<Registration> registrations = ConcurrentHashMap.newKeySet();

    /** {@code wake} runs on the listener's thread: it must only signal, never query. */
    public Registration register(Runnable wake, Predicate<String> interest) {
        Registration registration = new Registration(requireNonNull(wake, "wake is null"),
                requireNonNull(interest, "interest is null"));
        registrations.add(registration);
        return registration;
    }

    /** One notification from the database. */
    public void publish(String payload) {
        for (Registration registration : registrations) {
            if (registration.interest.test(payload == null ? "" : payload)) {
                registration.wake.run();
            }
        }
    }

    /** Wakes every waiter: notifications may have been missed (the listener reconnected) or the process stops. */
    public void publishAll() {
        registrations.forEach(registration -> registration.wake.run());
    }

    /** Interest in the notifications of one executor ({@code http} or {@code worker}). */
    public static Predicate<String> executor(String executor) {
        String suffix = ":" + executor;
        return payload -> payload.endsWith(suffix);
    }

    public final class Registration implements AutoCloseable {
        private final Runnable wake;
        private final Predicate<String> interest;

        private Registration(Runnable wake, Predicate<String> interest) {
            this.wake = wake;
            this.interest = interest;
        }

        @Override
        public void close() {
            registrations.remove(this);
        }
    }
}
