-- Publishes of one job and business key are fenced: each publish claim takes the next generation of its key, and the
-- target refuses a commit whose generation is not above the newest it holds for the key. So a paused publisher of a
-- settled run can never commit over a later run's publish. The counter is never reset, even when runs are deleted.
CREATE TABLE load_publish_generation (
    job_key      text   NOT NULL,
    business_key text   NOT NULL,
    generation   bigint NOT NULL,
    PRIMARY KEY (job_key, business_key)
);

-- The generation the run's publish claim took; null before the claim (and for runs claimed before this migration).
ALTER TABLE load_run ADD COLUMN publish_generation bigint;
