package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.positive;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the monitor's attention list calls stuck and stale ({@code monitor.*}). {@code stuckAfter} bounds the states
 * in which a run waits for one step (EXTRACTED_VALIDATED, STAGING_VALIDATED, PUBLISHING, PUBLISHED); the others use
 * the sweeper's own thresholds. {@code freshness} is, per job key, how old its last successful load may be; it lives
 * here, beside the alert that watches it, because only the ledger sees every job's loads.
 */
public record MonitorConfig(Duration stuckAfter, Map<String, Duration> freshness) {
    public MonitorConfig {
        positive(stuckAfter, "monitor.stuck_after");
        requireNonNull(freshness, "monitor.freshness is null");
        freshness.forEach((job, age) -> positive(age, "monitor.freshness"));
        freshness = Collections.unmodifiableMap(new LinkedHashMap<>(freshness));
    }

    static MonitorConfig defaults() {
        return new MonitorConfig(Duration.ofMinutes(30), Map.of());
    }

    /** {@code monitor.freshness} entries such as {@code orders=26h}: a job key, {@code =}, a duration. */
    static Map<String, Duration> freshness(List<String> entries) {
        Map<String, Duration> freshness = new LinkedHashMap<>();
        for (String entry : entries) {
            int eq = entry.lastIndexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new ConfigException("monitor.freshness", "monitor.freshness entry '" + entry
                        + "' is not JOB_KEY=DURATION, e.g. orders=26h");
            }
            String job = entry.substring(0, eq).strip();
            Duration age;
            try {
                age = Durations.parse(entry.substring(eq + 1).strip());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("monitor.freshness", "monitor.freshness entry '" + entry + "': "
                        + e.getMessage());
            }
            if (freshness.put(job, age) != null) {
                throw new ConfigException("monitor.freshness", "monitor.freshness names job " + job + " twice");
            }
        }
        return freshness;
    }
}
