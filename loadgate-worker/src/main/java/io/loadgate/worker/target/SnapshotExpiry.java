package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.Table;

/**
 * How long a target keeps its history ({@code cleanup.snapshot_retention}, {@code cleanup.snapshots_kept}), and the
 * expiry of an Iceberg table's snapshots past it. Until a snapshot expires, every data file it references stays, so
 * without this a replaced or rolled-back run's staged files could never be freed.
 *
 * <p>Iceberg deletes the manifests and manifest lists that only expired snapshots used, all under the table's
 * location. It deletes no staged data file: those live in run paths, and the cleaner deletes them when their run's
 * own retention is over, after this expiry made them unreferenced.
 */
public final class SnapshotExpiry {
    /** Snapshots older than {@code maxAge} expire, but the newest {@code minSnapshots} always stay. */
    public record Retention(Duration maxAge, int minSnapshots) {
        /**
         * {@code cleanup.snapshot_retention} 2d, {@code cleanup.snapshots_kept} 1: shorter than the 3 days after
         * which a succeeded run is cleaned (once), so a run replaced by then has its snapshot expired by then.
         */
        public static final Retention DEFAULT = new Retention(Duration.ofDays(2), 1);

        public Retention {
            requireNonNull(maxAge, "maxAge is null");
            if (maxAge.isNegative()) {
                throw new IllegalArgumentException("snapshot retention must not be negative: " + maxAge);
            }
            if (minSnapshots < 1) {
                throw new IllegalArgumentException("at least one snapshot must be kept: " + minSnapshots);
            }
        }
    }

    private final Retention retention;
    private final Clock clock;

    public SnapshotExpiry(Retention retention, Clock clock) {
        this.retention = requireNonNull(retention, "retention is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Expires what is past retention in one commit; returns how many snapshots expired. */
    int expire(Table table) {
        int before = size(table);
        String tableLocation = table.location().endsWith("/") ? table.location() : table.location() + "/";
        table.expireSnapshots()
                .expireOlderThan(clock.millis() - retention.maxAge().toMillis())
                .retainLast(retention.minSnapshots())
                .deleteWith(location -> {
                    // A data file in a run path is the cleaner's, under the run's retention. Iceberg spells the
                    // metadata it wrote with the table's location; a location spelled otherwise is left alone.
                    if (location.startsWith(tableLocation)) {
                        table.io().deleteFile(location);
                    }
                })
                .commit();
        table.refresh();
        return before - size(table);
    }

    private static int size(Table table) {
        int n = 0;
        for (var ignored : table.snapshots()) {
            n++;
        }
        return n;
    }
}
