-- A manifest may leave the source's metrics out and say they follow (sourceMetricsPending, an extension): the
-- submitter measures them at the same snapshot while the partitions extract, then PUTs them. Until they are in, the
-- run's staging validation is not scheduled, since nothing can be judged against metrics the ledger does not have.
-- Non-NULL while they are awaited: since when (the manifest's registration), for the sweeper's timeout.
ALTER TABLE load_run ADD COLUMN source_metrics_due_since timestamptz;
