package io.loadgate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The machine's 1-minute load average through the run, sampled every 5 s from {@code /proc/loadavg}: other
 * sessions share the cores, and only ratios measured under the same load compare. Empty where there is no
 * {@code /proc}.
 */
final class LoadAverage implements AutoCloseable {
    private static final Path LOADAVG = Path.of("/proc/loadavg");

    private final List<Double> samples = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-loadavg");
        t.setDaemon(true);
        return t;
    });

    private LoadAverage() {
    }

    static LoadAverage start() {
        LoadAverage load = new LoadAverage();
        load.timer.scheduleAtFixedRate(load::sample, 0, 5, TimeUnit.SECONDS);
        return load;
    }

    private void sample() {
        try {
            double now = Double.parseDouble(Files.readString(LOADAVG).split("\\s+")[0]);
            synchronized (samples) {
                samples.add(now);
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: the figures stand without it.
        }
    }

    /** "min–max (mean M over N samples)" of the samples so far, or "unknown". */
    String summary() {
        DoubleSummaryStatistics stats;
        synchronized (samples) {
            stats = samples.stream().mapToDouble(Double::doubleValue).summaryStatistics();
        }
        return stats.getCount() == 0 ? "unknown" : "%.1f–%.1f (mean %.1f over %d samples, every 5 s)".formatted(
                stats.getMin(), stats.getMax(), stats.getAverage(), stats.getCount());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
