-- The monitor asks, per failed run, whether a later run of the same job and key succeeded, and lists each key's
-- runs newest first: both read by job and key, which only the partial index of active runs covered.
CREATE INDEX load_run_job_key ON load_run (job_key, business_key, started_at DESC);
