-- The load ledger. Every decision is a conditional UPDATE on these tables; every state change writes load_event.

CREATE TABLE load_run (
    run_id                   uuid PRIMARY KEY,
    job_key                  text        NOT NULL,
    business_key             text        NOT NULL,
    status                   text        NOT NULL,
    executor                 text        NOT NULL,
    hdfs_root                text        NOT NULL,
    hdfs_run_path            text        NOT NULL,
    stage_table              text        NOT NULL,
    allow_empty_source       boolean     NOT NULL DEFAULT false,
    parameters               jsonb       NOT NULL DEFAULT '{}'::jsonb,
    snapshot_scn             numeric(38),
    snapshot_ref             text,
    source_count             bigint,
    source_null_split_count  bigint,
    source_min_split         numeric(38),
    source_max_split         numeric(38),
    planned_partition_count  integer,
    source_metrics           jsonb,
    source_metrics_version   text,
    manifest                 jsonb,
    manifest_response        jsonb,
    expected_partition_count integer,
    extracted_count          bigint      NOT NULL DEFAULT 0,
    staging_count            bigint,
    target_count             bigint,
    publish_token            uuid,
    target_ref               text,
    created_by               text,
    started_at               timestamptz NOT NULL DEFAULT now(),
    status_changed_at        timestamptz NOT NULL DEFAULT now(),
    heartbeat_at             timestamptz,
    extract_completed_at     timestamptz,
    publish_started_at       timestamptz,
    completed_at             timestamptz,
    stale_alert_at           timestamptz,
    cleaned_at               timestamptz,
    error_stage              text,
    error_code               text,
    error_message            text,
    CONSTRAINT load_run_status_check CHECK (status IN (
        'CREATED', 'EXTRACTING', 'EXTRACTED_VALIDATED', 'STAGE_VALIDATING', 'STAGING_VALIDATED', 'PUBLISHING',
        'PUBLISHED', 'PUBLISH_UNKNOWN', 'SUCCESS', 'FAILED_MANIFEST', 'FAILED_EXTRACT', 'FAILED_SNAPSHOT_EXPIRED',
        'FAILED_STAGE_VALIDATION', 'FAILED_PUBLISH', 'FAILED_TARGET_VALIDATION', 'TIMED_OUT', 'CANCELLED')),
    CONSTRAINT load_run_executor_check CHECK (executor IN ('http', 'worker'))
);

-- One active run per job and business key, decided by the index itself, never by a read-then-insert.
CREATE UNIQUE INDEX load_run_one_active ON load_run (job_key, business_key)
    WHERE status IN ('CREATED', 'EXTRACTING', 'EXTRACTED_VALIDATED', 'STAGE_VALIDATING', 'STAGING_VALIDATED',
                     'PUBLISHING', 'PUBLISHED', 'PUBLISH_UNKNOWN');
CREATE INDEX load_run_started ON load_run (started_at DESC);
CREATE INDEX load_run_status ON load_run (status);

CREATE TABLE load_partition (
    run_id             uuid        NOT NULL REFERENCES load_run (run_id) ON DELETE CASCADE,
    partition_id       text        NOT NULL,
    status             text        NOT NULL,
    lower_bound        numeric(38),
    upper_bound        numeric(38),
    upper_inclusive    boolean     NOT NULL DEFAULT false,
    is_null_partition  boolean     NOT NULL DEFAULT false,
    expected_row_count bigint      NOT NULL,
    source_ref         text,
    spec               jsonb       NOT NULL,
    claim_token        uuid,
    worker_node        text,
    attempt_count      integer     NOT NULL DEFAULT 0,
    actual_row_count   bigint,
    heartbeat_at       timestamptz,
    started_at         timestamptz,
    completed_at       timestamptz,
    error_stage        text,
    error_class        text,
    error_code         text,
    error_message      text,
    PRIMARY KEY (run_id, partition_id),
    CONSTRAINT load_partition_status_check CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'RETRY', 'TIMED_OUT'))
);
CREATE INDEX load_partition_running ON load_partition (heartbeat_at) WHERE status = 'RUNNING';

-- One row per reported chunk. A chunk is COMMITTED when its report is accepted; a reissue marks the old
-- attempt's chunks FAILED so that only the current attempt's files are ever validated or published.
CREATE TABLE load_file (
    file_id             bigserial PRIMARY KEY,
    run_id              uuid        NOT NULL,
    partition_id        text        NOT NULL,
    chunk_index         integer     NOT NULL,
    chunk_count         integer     NOT NULL,
    claim_token         uuid        NOT NULL,
    attempt             integer     NOT NULL,
    fragment_identifier text,
    hdfs_path           text        NOT NULL,
    record_count        bigint      NOT NULL,
    byte_count          bigint      NOT NULL,
    checksum            text,
    status              text        NOT NULL DEFAULT 'COMMITTED',
    created_at          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (run_id, partition_id) REFERENCES load_partition (run_id, partition_id) ON DELETE CASCADE,
    CONSTRAINT load_file_status_check CHECK (status IN ('COMMITTED', 'FAILED')),
    CONSTRAINT load_file_counts_check CHECK (record_count >= 0 AND byte_count >= 0 AND chunk_index >= 0 AND chunk_index < chunk_count)
);
CREATE UNIQUE INDEX load_file_one_committed_chunk ON load_file (run_id, partition_id, chunk_index) WHERE status = 'COMMITTED';

CREATE TABLE load_validation (
    validation_id  bigserial PRIMARY KEY,
    run_id         uuid        NOT NULL REFERENCES load_run (run_id) ON DELETE CASCADE,
    stage          text        NOT NULL,
    metric_name    text        NOT NULL,
    query_version  text        NOT NULL,
    expected_value text,
    actual_value   text,
    tolerance      text,
    result         text        NOT NULL,
    details        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT load_validation_stage_check CHECK (stage IN ('STAGING', 'TARGET')),
    CONSTRAINT load_validation_result_check CHECK (result IN ('PASS', 'FAIL', 'WARN')),
    CONSTRAINT load_validation_unique UNIQUE (run_id, stage, metric_name, query_version)
);

-- The transactional outbox: a decision that needs a next step inserts its dispatch in the same transaction.
CREATE TABLE load_dispatch (
    dispatch_id     uuid PRIMARY KEY,
    run_id          uuid        NOT NULL REFERENCES load_run (run_id) ON DELETE CASCADE,
    dispatch_type   text        NOT NULL,
    partition_id    text,
    executor        text        NOT NULL,
    status          text        NOT NULL DEFAULT 'PENDING',
    payload         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    attempt_count   integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,
    leased_by       text,
    sent_at         timestamptz,
    acked_at        timestamptz,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT load_dispatch_status_check CHECK (status IN ('PENDING', 'SENT', 'ACKED', 'DEAD')),
    CONSTRAINT load_dispatch_type_check CHECK (dispatch_type IN (
        'EXTRACT_PARTITION', 'VALIDATE_RUN', 'PUBLISH_RUN', 'VALIDATE_TARGET', 'REISSUE_PARTITION')),
    CONSTRAINT load_dispatch_executor_check CHECK (executor IN ('http', 'worker'))
);
CREATE UNIQUE INDEX load_dispatch_one_validate_run ON load_dispatch (run_id) WHERE dispatch_type = 'VALIDATE_RUN';
CREATE INDEX load_dispatch_due ON load_dispatch (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX load_dispatch_sent ON load_dispatch (sent_at) WHERE status = 'SENT';
CREATE INDEX load_dispatch_run ON load_dispatch (run_id);

CREATE FUNCTION load_dispatch_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('loadgate_dispatch', NEW.dispatch_type || ':' || NEW.executor);
    RETURN NEW;
END $$;
CREATE TRIGGER load_dispatch_notify AFTER INSERT OR UPDATE OF status ON load_dispatch
    FOR EACH ROW WHEN (NEW.status = 'PENDING') EXECUTE FUNCTION load_dispatch_notify();

CREATE TABLE load_event (
    event_id     bigserial PRIMARY KEY,
    run_id       uuid        NOT NULL REFERENCES load_run (run_id) ON DELETE CASCADE,
    partition_id text,
    event_type   text        NOT NULL,
    from_status  text,
    to_status    text,
    actor        text,
    details      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX load_event_run ON load_event (run_id, event_id);
