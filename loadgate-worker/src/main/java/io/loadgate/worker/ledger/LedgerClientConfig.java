package io.loadgate.worker.ledger;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;

/**
 * How {@link HttpLedgerClient} reaches the ledger. Immutable; {@link #builder} checks every value once and names the
 * setting it refuses.
 *
 * @param baseUri        the ledger, e.g. {@code http://127.0.0.1:8080}; {@code /v1/...} is appended
 * @param token          the bearer token
 * @param connectTimeout how long to wait for a TCP connection
 * @param requestTimeout how long to wait for an answer to an ordinary call
 * @param longPollMargin added to a lease's {@code waitSeconds}, so the long poll ends on the ledger's side first
 * @param retry          how often and how patiently repeatable calls are retried
 */
public record LedgerClientConfig(URI baseUri, LedgerToken token, Duration connectTimeout, Duration requestTimeout,
                                 Duration longPollMargin, Retry retry) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_LONG_POLL_MARGIN = Duration.ofSeconds(10);

    public LedgerClientConfig {
        requireNonNull(baseUri, "baseUri is null");
        requireNonNull(token, "token is null");
        requireNonNull(retry, "retry is null");
        if (!baseUri.isAbsolute() || !("http".equals(baseUri.getScheme()) || "https".equals(baseUri.getScheme()))
                || baseUri.getHost() == null) {
            throw new IllegalArgumentException("ledger URL must be http:// or https:// with a host, got " + baseUri);
        }
        if (baseUri.getQuery() != null || baseUri.getFragment() != null) {
            throw new IllegalArgumentException("ledger URL must not have a query or fragment, got " + baseUri);
        }
        positive("connectTimeout", connectTimeout);
        positive("requestTimeout", requestTimeout);
        positive("longPollMargin", longPollMargin);
    }

    /**
     * Retries of transport failures and 5xx answers: attempts go on for {@code window} after the first one started,
     * waiting {@code initialBackoff}, then twice as long each time up to {@code maxBackoff}, with jitter so that many
     * workers do not return at the same instant. A window of zero makes one attempt.
     *
     * <p>The window is what a ledger outage may last without costing a run: a restarted ledger, or its database
     * failing over, is back within it. It must stay well below the ledger's {@code recovery.stale}, so that a
     * worker that gave up is noticed and its partition reissued.
     */
    public record Retry(Duration window, Duration initialBackoff, Duration maxBackoff) {
        public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);
        public static final Retry DEFAULT = within(DEFAULT_WINDOW);
        /** One attempt: every failure is reported at once. */
        public static final Retry NONE = new Retry(Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(1));

        public Retry {
            requireNonNull(window, "retry.window is null");
            if (window.isNegative()) {
                throw new IllegalArgumentException("retry.window must not be negative, got " + window);
            }
            positive("retry.initialBackoff", initialBackoff);
            positive("retry.maxBackoff", maxBackoff);
            if (maxBackoff.compareTo(initialBackoff) < 0) {
                throw new IllegalArgumentException("retry.maxBackoff " + maxBackoff + " is less than retry.initialBackoff "
                        + initialBackoff);
            }
        }

        /** Retries for {@code window}, from 250 ms between attempts up to 5 s. */
        public static Retry within(Duration window) {
            return new Retry(window, Duration.ofMillis(250), Duration.ofSeconds(5));
        }

        /** The wait before attempt {@code attempt + 1}, before jitter. */
        Duration backoff(int attempt) {
            Duration wait = initialBackoff;
            for (int i = 1; i < attempt && wait.compareTo(maxBackoff) < 0; i++) {
                wait = wait.multipliedBy(2);
            }
            return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
        }
    }

    public static Builder builder(URI baseUri, LedgerToken token) {
        return new Builder(baseUri, token);
    }

    public static Builder builder(String baseUri, LedgerToken token) {
        try {
            return new Builder(URI.create(requireNonNull(baseUri, "baseUri is null")), token);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ledger URL is not a URL: " + baseUri);
        }
    }

    private static void positive(String name, Duration value) {
        requireNonNull(value, name + " is null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /** Defaults: connect 5 s, request 30 s, long-poll margin 10 s, {@link Retry#DEFAULT}. */
    public static final class Builder {
        private final URI baseUri;
        private final LedgerToken token;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration longPollMargin = DEFAULT_LONG_POLL_MARGIN;
        private Retry retry = Retry.DEFAULT;

        private Builder(URI baseUri, LedgerToken token) {
            this.baseUri = baseUri;
            this.token = token;
        }

        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder requestTimeout(Duration value) {
            this.requestTimeout = value;
            return this;
        }

        public Builder longPollMargin(Duration value) {
            this.longPollMargin = value;
            return this;
        }

        public Builder retry(Retry value) {
            this.retry = value;
            return this;
        }

        public LedgerClientConfig build() {
            return new LedgerClientConfig(baseUri, token, connectTimeout, requestTimeout, longPollMargin, retry);
        }
    }

    @Override
    public String toString() {
        return "LedgerClientConfig[baseUri=" + baseUri + ", connectTimeout=" + connectTimeout + ", requestTimeout="
                + requestTimeout + ", longPollMargin=" + longPollMargin + ", retry=" + retry + "]";
    }
}
