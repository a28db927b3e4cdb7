package io.loadgate.bench;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.bench.TimedLedgerClient.Call;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * What one load measured. Times are System.nanoTime of this process, read off the timed ledger calls, so that
 * every boundary is a call the worker made: the load starts before the submitter opens the snapshot and ends when
 * the worker's {@code success} call returns (the run is SUCCESS then; the follower's 100 ms polling plays no part).
 */
record LoadResult(String label, int partitions, long rows, long chunkFiles, long wallNanos, long extractWorkerNanos,
                  long extractLedgerNanos, Map<String, Long> phases, long ledgerNanos, long ledgerCalls,
                  Map<String, long[]> byMethod, long followerNanos, long followerCalls, long afterExtractNanos) {

    double wallSeconds() {
        return wallNanos / 1e9;
    }

    double loadRowsPerSecond() {
        return rows / (wallNanos / 1e9);
    }

    /** First claim to the last chunk report: the workers' own extraction, into committed (reported) Parquet. */
    double extractWorkerRowsPerSecond() {
        return rows / (extractWorkerNanos / 1e9);
    }

    /** The ledger's view: the run's startedAt to its extractCompletedAt (includes manifest and dispatch latency). */
    double extractLedgerRowsPerSecond() {
        return rows / (extractLedgerNanos / 1e9);
    }

    /** The ledger's view of what follows extraction: extractCompletedAt to completedAt. */
    double afterExtractSeconds() {
        return afterExtractNanos / 1e9;
    }

    double ledgerShare() {
        return (double) ledgerNanos / wallNanos;
    }

    static LoadResult of(String label, int partitions, RunView end, long start, List<Call> calls,
                         List<Call> followerCalls) {
        long planned = last(calls, "registerManifest", Call::endNanos);
        long firstClaim = first(calls, "claim", Call::startNanos);
        long lastChunk = last(calls, "reportChunk", Call::endNanos);
        long validationStart = first(calls, "startValidation", Call::startNanos);
        long validated = last(calls, "stageValidated", Call::endNanos);
        long publishStart = first(calls, "publishClaim", Call::startNanos);
        long published = last(calls, "publishResult", Call::endNanos);
        long succeeded = last(calls, "success", Call::endNanos);
        Map<String, Long> phases = new java.util.LinkedHashMap<>();
        phases.put("plan (snapshot, stats, create run, manifest)", planned - start);
        phases.put("manifest -> first claim (dispatch)", firstClaim - planned);
        phases.put("extract (first claim -> last chunk reported)", lastChunk - firstClaim);
        phases.put("last chunk -> staging validation starts", validationStart - lastChunk);
        phases.put("staging validation", validated - validationStart);
        phases.put("validated -> publish claim", publishStart - validated);
        phases.put("publish (claim -> result)", published - publishStart);
        phases.put("published -> success (target validation)", succeeded - published);

        Predicate<Call> counted = c -> !c.isLeaseWait();
        Map<String, long[]> byMethod = new TreeMap<>();
        long ledgerNanos = 0;
        long ledgerCalls = 0;
        for (Call c : calls) {
            long[] m = byMethod.computeIfAbsent(c.method(), k -> new long[3]);
            m[0]++;
            m[1] += c.nanos();
            m[2] = Math.max(m[2], c.nanos());
            if (counted.test(c) && c.startNanos() >= start && c.endNanos() <= succeeded) {
                ledgerNanos += c.nanos();
                ledgerCalls++;
            }
        }
        long followerNanos = followerCalls.stream().mapToLong(Call::nanos).sum();
        long extractLedger = Duration.between(end.startedAt(), end.extractCompletedAt()).toNanos();
        long chunks = calls.stream().filter(c -> c.method().equals("reportChunk") && !c.failed()).count();
        return new LoadResult(label, partitions, end.extractedCount(), chunks, succeeded - start, lastChunk - firstClaim,
                extractLedger, phases, ledgerNanos, ledgerCalls, byMethod, followerNanos, followerCalls.size(),
                Duration.between(end.extractCompletedAt(), end.completedAt()).toNanos());
    }

    private static long first(List<Call> calls, String method, ToLongFunction<Call> time) {
        return calls.stream().filter(c -> c.method().equals(method)).mapToLong(time).min()
                .orElseThrow(() -> new IllegalStateException("the load made no " + method + " call"));
    }

    private static long last(List<Call> calls, String method, ToLongFunction<Call> time) {
        return calls.stream().filter(c -> c.method().equals(method)).mapToLong(time).max()
                .orElseThrow(() -> new IllegalStateException("the load made no " + method + " call"));
    }
}
