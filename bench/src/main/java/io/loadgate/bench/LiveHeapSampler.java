package io.loadgate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A process's reachable heap, sampled while a load runs: {@code jcmd PID GC.class_histogram} makes a full
 * collection first, so its total is what the process still held at that moment, neither garbage nor G1's sizing of
 * the heap. Each sample pauses the process for the collection, so a load sampled this way is not a timed one.
 *
 * <p>A histogram taken while a thread holds a JNI critical region (zstd-jni compressing a page does) is counted
 * without the collection, garbage and all: in the first runs such samples were the only "spikes" (258 MiB against
 * 79 MiB after the collections around them, bench/RESULTS.md). So a sample counts only when the process's gc log
 * shows its collection ({@code Pause Full (Heap Inspection Initiated GC)}); the others are counted as skipped.
 */
final class LiveHeapSampler implements AutoCloseable {
    // "   1:        123456       98765432  [B (java.base@17.0.15)" and "Total        234567      123456789".
    private static final Pattern CLASS_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    private static final Pattern TOTAL_LINE = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");
    private static final int TOP_CLASSES = 6;

    /** One histogram: when it was taken, the reachable bytes and the classes holding most of them ("class MiB"). */
    record Sample(Instant at, long bytes, List<String> topClasses) {
        long mib() {
            return bytes >> 20;
        }
    }

    private final long pid;
    private final Path gcLog;
    private final Duration every;
    private final Thread thread;
    private final List<Sample> samples = new ArrayList<>();
    private final AtomicInteger skipped = new AtomicInteger();
    private volatile boolean stopped;

    private LiveHeapSampler(long pid, Path gcLog, Duration every) {
        this.pid = pid;
        this.gcLog = gcLog;
        this.every = every;
        this.thread = new Thread(this::sampleUntilStopped, "live-heap-" + pid);
        this.thread.setDaemon(true);
    }

    /** Samples process {@code pid}, whose {@code -Xlog:gc} goes to {@code gcLog}, every {@code every}. */
    static LiveHeapSampler start(long pid, Path gcLog, Duration every) {
        LiveHeapSampler sampler = new LiveHeapSampler(pid, gcLog, every);
        sampler.thread.start();
        return sampler;
    }

    private void sampleUntilStopped() {
        while (!stopped) {
            try {
                long collections = inspections();
                Sample sample = histogram();
                if (collected(collections)) {
                    synchronized (samples) {
                        samples.add(sample);
                    }
                } else {
                    skipped.incrementAndGet();
                }
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                // The process may be between loads or exiting: a missed sample is only a gap.
                if (stopped) {
                    return;
                }
            }
        }
    }

    private long inspections() throws IOException {
        try (Stream<String> lines = Files.lines(gcLog)) {
            return lines.filter(line -> line.contains("Heap Inspection")).count();
        }
    }

    /** Whether the gc log shows a heap inspection's collection since it counted {@code before} (it may lag). */
    private boolean collected(long before) throws IOException, InterruptedException {
        for (int tries = 0; tries < 10; tries++) {
            if (inspections() > before) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    private Sample histogram() throws IOException, InterruptedException {
        String out = Jcmd.run(pid, "GC.class_histogram");
        Instant at = Instant.now();
        List<String> top = new ArrayList<>();
        for (String line : out.split("\n")) {
            Matcher total = TOTAL_LINE.matcher(line);
            if (total.find()) {
                return new Sample(at, Long.parseLong(total.group(2)), List.copyOf(top));
            }
            Matcher type = CLASS_LINE.matcher(line);
            if (type.find() && top.size() < TOP_CLASSES) {
                top.add("%s %d".formatted(type.group(3), Long.parseLong(type.group(2)) >> 20));
            }
        }
        throw new IOException("no total in jcmd's histogram: " + out);
    }

    /** Every sample so far, in order. */
    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /** The histograms taken without their collection, left out of {@link #samples}. */
    int skipped() {
        return skipped.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(70));
    }
}
