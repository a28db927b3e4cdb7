package io.loadgate.cli;

import io.loadgate.server.config.Durations;
import io.loadgate.worker.target.SnapshotExpiry;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How far back a cleaner keeps an Iceberg target's snapshots. A cleaner talking to a remote ledger has no
 * {@code cleanup.snapshot_retention} of its own to read, so it takes these, with the same defaults.
 */
final class SnapshotRetentionOptions {
    @Option(names = "--snapshot-retention", paramLabel = "DURATION", description = "before cleaning, expire an"
            + " Iceberg target's snapshots older than DURATION, so the files only they reference can go (default:"
            + " cleanup.snapshot_retention, 2d)")
    String retention;

    @Option(names = "--snapshots-kept", paramLabel = "N", description = "but always keep the table's newest N"
            + " snapshots (default: cleanup.snapshots_kept, 1)")
    Integer kept;

    /** The flags over {@code configured}: each one given replaces its part. */
    SnapshotExpiry expiry(SnapshotExpiry.Retention configured) {
        Duration maxAge = configured.maxAge();
        if (retention != null) {
            try {
                maxAge = Durations.parse(retention);
            } catch (IllegalArgumentException e) {
                throw new CliException("--snapshot-retention: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
            }
        }
        int minSnapshots = kept == null ? configured.minSnapshots() : kept;
        if (minSnapshots < 1) {
            throw new CliException("--snapshots-kept must be at least 1, got " + kept, LedgerOptions.EXIT_USAGE);
        }
        return new SnapshotExpiry(new SnapshotExpiry.Retention(maxAge, minSnapshots), Clock.systemUTC());
    }
}
