package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.positive;
import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Outbox delivery ({@code dispatch.*}). Without {@code receiverUrl} nothing is pushed and executors pull with
 * {@code POST /v1/dispatches/lease}.
 */
public record DispatchConfig(
        Optional<URI> receiverUrl,
        int maxAttempts,
        Duration backoffMin,
        Duration backoffMax,
        Duration ackTimeout,
        Duration lease,
        Duration pollInterval,
        int batch) {
    public DispatchConfig {
        requireNonNull(receiverUrl, "dispatch.receiver_url is null");
        receiverUrl.ifPresent(DispatchConfig::requireHttp);
        positive(maxAttempts, "dispatch.max_attempts");
        positive(backoffMin, "dispatch.backoff_min");
        positive(backoffMax, "dispatch.backoff_max");
        positive(ackTimeout, "dispatch.ack_timeout");
        positive(lease, "dispatch.lease");
        positive(pollInterval, "dispatch.poll_interval");
        positive(batch, "dispatch.batch");
        if (backoffMin.compareTo(backoffMax) > 0) {
            throw new ConfigException("dispatch.backoff_min", "dispatch.backoff_min (" + Durations.format(backoffMin)
                    + ") must not exceed dispatch.backoff_max (" + Durations.format(backoffMax) + ")");
        }
    }

    /** The contract's defaults, no receiver (pull only). */
    public static DispatchConfig defaults() {
        return new DispatchConfig(Optional.empty(), 20, Duration.ofSeconds(5), Duration.ofMinutes(5),
                Duration.ofMinutes(10), Duration.ofSeconds(60), Duration.ofSeconds(5), 20);
    }

    /** Masks credentials in the receiver URL, since this ends up in start-up logs. */
    @Override
    public String toString() {
        return "DispatchConfig[receiverUrl=" + receiverUrl.map(Masking::uri).orElse("<none>")
                + ", maxAttempts=" + maxAttempts + ", backoffMin=" + backoffMin + ", backoffMax=" + backoffMax
                + ", ackTimeout=" + ackTimeout + ", lease=" + lease + ", pollInterval=" + pollInterval
                + ", batch=" + batch + "]";
    }

    private static void requireHttp(URI url) {
        String scheme = url.getScheme();
        boolean http = "http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
        if (!http || url.getHost() == null) {
            throw new ConfigException("dispatch.receiver_url",
                    "dispatch.receiver_url must be an http:// or https:// URL with a host, got '"
                            + Masking.uri(url) + "'");
        }
    }
}
