package io.loadgate.server.dispatch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loadgate.api.DispatchType;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.LeasedDispatch;
import io.loadgate.server.config.DispatchConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push delivery of the outbox to a NiFi flow (executor "http"), as the contract's "Outbox and dispatcher" says.
 *
 * <p>A pass leases due dispatches with FOR UPDATE SKIP LOCKED and commits, and only then POSTs each one, so no
 * HTTP call ever runs inside a ledger transaction and several dispatchers never send the same lease. 2xx marks the
 * dispatch SENT (202 is a receipt, not an ACK: the receiving step's own compare-and-set ACKs it, possibly before
 * SENT is written, which then leaves the ACK alone); 5xx, 408, 425, 429 and connection failures retry with backoff;
 * any other 4xx is DEAD. A dispatcher that dies between lease and send leaves a lease that simply expires.
 *
 * <p>The loop wakes on the database's NOTIFY for new http dispatches and otherwise every {@code pollInterval};
 * each pass catches everything, logs it and goes on.
 */
public final class Dispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** Where and how to deliver. */
    public record Settings(URI receiverUrl, DispatchPolicy policy, Duration pollInterval, int batch) {
        public Settings {
            requireNonNull(receiverUrl, "receiverUrl is null");
            requireNonNull(policy, "policy is null");
            requireNonNull(pollInterval, "pollInterval is null");
            if (batch < 1) {
                throw new IllegalArgumentException("batch must be at least 1");
            }
        }

        /** The push settings of a configuration that has a receiver URL. */
        public static Settings of(DispatchConfig config) {
            URI receiver = config.receiverUrl().orElseThrow(() ->
                    new IllegalArgumentException("dispatch.receiver_url is not set; nothing is pushed"));
            return new Settings(receiver, Dispatcher.policy(config), config.pollInterval(), config.batch());
        }
    }

    /** The ledger's delivery policy from {@code dispatch.*}. */
    public static DispatchPolicy policy(DispatchConfig config) {
        return new DispatchPolicy(config.maxAttempts(), config.backoffMin(), config.backoffMax(), config.ackTimeout(),
                config.lease());
    }

    private final Dispatches dispatches;
    private final Settings settings;
    private final NotificationHub hub;
    private final String name;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final Waiter waiter = new Waiter();
    private final Thread thread;
    private volatile boolean stopped;

    public Dispatcher(Dispatches dispatches, Settings settings, NotificationHub hub, String name) {
        this.dispatches = requireNonNull(dispatches, "dispatches is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.hub = requireNonNull(hub, "hub is null");
        this.name = requireNonNull(name, "name is null");
        // A send must end well inside the lease, or another dispatcher would lease and send it again meanwhile.
        Duration halfLease = settings.policy().lease().dividedBy(2);
        this.requestTimeout = min(Duration.ofSeconds(30), halfLease);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(min(Duration.ofSeconds(10), halfLease))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.thread = new Thread(this::loop, "loadgate-dispatcher-" + name);
        this.thread.setDaemon(true);
    }

    /** A name unique to this process, kept in {@code leased_by}. */
    public static String processName() {
        return "dispatcher-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public String name() {
        return name;
    }

    public Dispatcher start() {
        thread.start();
        return this;
    }

    private void loop() {
        try (var registration = hub.register(waiter::wake, NotificationHub.executor("http"))) {
            while (!stopped) {
                int leased = 0;
                try {
                    leased = runOnce();
                } catch (Throwable t) {
                    LOG.error("dispatcher {} pass failed; trying again in {}", name, settings.pollInterval(), t);
                }
                if (stopped) {
                    break;
                }
                if (leased < settings.batch()) {
                    try {
                        waiter.await(settings.pollInterval());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
    }

    /** One pass: lease a batch, send each dispatch, record each outcome. Returns how many were leased. */
    public int runOnce() {
        List<LeasedDispatch> leased = dispatches.leaseForPush(name, settings.policy(), settings.batch());
        if (leased.isEmpty()) {
            return 0;
        }
        List<CompletableFuture<Outcome>> sends = new ArrayList<>();
        for (LeasedDispatch dispatch : leased) {
            sends.add(send(dispatch));
        }
        for (int i = 0; i < leased.size(); i++) {
            LeasedDispatch dispatch = leased.get(i);
            try {
                record(dispatch, sends.get(i).join());
            } catch (RuntimeException e) {
                // The lease expires and the dispatch is sent again; at least once is the contract.
                LOG.warn("dispatcher {} could not record the outcome of dispatch {}: {}", name,
                        dispatch.dispatchId(), e.toString());
            }
        }
        return leased.size();
    }

    private CompletableFuture<Outcome> send(LeasedDispatch dispatch) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(target(dispatch))
                    .timeout(requestTimeout)
                    .header("Content-Type", "application/json")
                    .header("X-Run-Id", dispatch.runId().toString())
                    .header("X-Dispatch-Id", dispatch.dispatchId().toString())
                    .POST(HttpRequest.BodyPublishers.ofString(body(dispatch)))
                    .build();
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Outcome.dead("cannot build the request: " + e.getMessage()));
        }
        return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .handle((response, failure) -> failure == null ? classify(response.statusCode())
                        : Outcome.retry(describe(failure)));
    }

    private URI target(LeasedDispatch dispatch) {
        String base = settings.receiverUrl().toString();
        base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        String step = dispatch.dispatchType() == DispatchType.VALIDATE_RUN ? "/validate/" : "/reissue/";
        return URI.create(base + step + dispatch.jobKey());
    }

    /** {@code {runId, dispatchId, dispatchType, partitionId, jobKey, businessKey, ...payload}}, flat for NiFi. */
    static String body(LeasedDispatch dispatch) {
        ObjectNode body = LedgerJson.MAPPER.createObjectNode();
        body.put("runId", dispatch.runId().toString());
        body.put("dispatchId", dispatch.dispatchId().toString());
        body.put("dispatchType", dispatch.dispatchType().name());
        body.put("partitionId", dispatch.partitionId());
        dispatch.payloadWithKeys().fields().forEachRemaining(field -> {
            if (!body.has(field.getKey())) {
                body.set(field.getKey(), field.getValue());
            }
        });
        return body.toString();
    }

    static Outcome classify(int status) {
        if (status >= 200 && status < 300) {
            return Outcome.SENT;
        }
        if (status == 408 || status == 425 || status == 429 || status >= 500) {
            return Outcome.retry("HTTP " + status);
        }
        if (status >= 400) {
            return Outcome.dead("HTTP " + status);
        }
        // 1xx and 3xx: the receiver is not answering as one; worth another attempt, bounded by max_attempts.
        return Outcome.retry("HTTP " + status);
    }

    private void record(LeasedDispatch dispatch, Outcome outcome) {
        switch (outcome.kind()) {
            case SENT -> {
                if (!dispatches.markSent(dispatch, name)) {
                    LOG.debug("dispatch {} was ACKed or re-leased before it could be marked SENT",
                            dispatch.dispatchId());
                }
            }
            case RETRY -> dispatches.markRetry(dispatch, name, settings.policy(), outcome.error())
                    .ifPresent(status -> LOG.info("dispatch {} attempt {} failed ({}); now {}", dispatch.dispatchId(),
                            dispatch.attempt(), outcome.error(), status));
            case DEAD -> {
                if (dispatches.markDead(dispatch, name, outcome.error())) {
                    LOG.warn("dispatch {} is DEAD: the receiver refused it ({})", dispatch.dispatchId(),
                            outcome.error());
                }
            }
        }
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** What one send came to. */
    record Outcome(Kind kind, String error) {
        static final Outcome SENT = new Outcome(Kind.SENT, null);

        static Outcome retry(String error) {
            return new Outcome(Kind.RETRY, error);
        }

        static Outcome dead(String error) {
            return new Outcome(Kind.DEAD, error);
        }

        enum Kind {
            SENT,
            RETRY,
            DEAD
        }
    }

    @Override
    public void close() {
        stopped = true;
        waiter.wake();
        try {
            thread.join(requestTimeout.plusSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
