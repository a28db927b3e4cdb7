-- The watermark of file sources (issue 11): the source directories each SUCCESS run of a job loaded, written in the
-- transaction that records the SUCCESS, so a key is never seen loaded without them nor them without the SUCCESS.
-- `loadgate load` without a key compares them with the directories listed now: a key with a directory that no SUCCESS
-- loaded (a new hour, or a late directory of an hour already loaded) is due.
CREATE TABLE load_run_directory (
    run_id       uuid NOT NULL REFERENCES load_run (run_id) ON DELETE CASCADE,
    job_key      text NOT NULL,
    business_key text NOT NULL,
    directory    text NOT NULL,
    -- Late: the key had a SUCCESS before this one, which did not load this directory (it appeared afterwards).
    late         boolean NOT NULL DEFAULT false,
    PRIMARY KEY (run_id, directory)
);
CREATE INDEX load_run_directory_job ON load_run_directory (job_key, business_key);
