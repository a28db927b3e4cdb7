package io.loadgate.ledger;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.cleanup.Cleanup;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.partition.Partitions;
import io.loadgate.ledger.publish.Publishing;
import io.loadgate.ledger.rollback.Rollbacks;
import io.loadgate.ledger.run.AttentionRules;
import io.loadgate.ledger.run.RunViews;
import io.loadgate.ledger.run.Runs;
import io.loadgate.ledger.validation.Validations;
import io.loadgate.ledger.watermark.Watermarks;

/** The ledger's decisions and reads, wired once per process over one database. */
public final class Ledger {
    private final Database database;
    private final LedgerSettings settings;
    private final Runs runs;
    private final Partitions partitions;
    private final RunViews views;
    private final Validations validations;
    private final Publishing publishing;
    private final Cleanup cleanup;
    private final Rollbacks rollbacks;
    private final Watermarks watermarks;

    public Ledger(Database database, LedgerSettings settings) {
        this(database, settings, AttentionRules.defaults());
    }

    /** With the monitor's own thresholds: when a run is stuck and a job's data stale. */
    public Ledger(Database database, LedgerSettings settings, AttentionRules attentionRules) {
        this.database = requireNonNull(database, "database is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.runs = new Runs(database, settings);
        this.partitions = new Partitions(database, settings);
        this.views = new RunViews(database, attentionRules);
        this.validations = new Validations(database, settings.heartbeatInterval());
        this.publishing = new Publishing(database, settings.publishStale());
        this.cleanup = new Cleanup(database, settings.retention());
        this.rollbacks = new Rollbacks(database);
        this.watermarks = new Watermarks(database);
    }

    public Database database() {
        return database;
    }

    public LedgerSettings settings() {
        return settings;
    }

    public Runs runs() {
        return runs;
    }

    public Partitions partitions() {
        return partitions;
    }

    public RunViews views() {
        return views;
    }

    public Validations validations() {
        return validations;
    }

    public Publishing publishing() {
        return publishing;
    }

    public Cleanup cleanup() {
        return cleanup;
    }

    public Rollbacks rollbacks() {
        return rollbacks;
    }

    public Watermarks watermarks() {
        return watermarks;
    }
}
