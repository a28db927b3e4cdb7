-- Who started a run's staging validation, and when it last said it was alive. The same caller (the same dispatch and
-- node) presenting its start again is the same start (its first answer may have been lost); a validation whose
-- caller stopped beating for validation_stale is given again, at most recovery.max_attempts starts in all.
ALTER TABLE load_run ADD COLUMN validation_dispatch_id uuid,
                     ADD COLUMN validation_node text,
                     ADD COLUMN validation_heartbeat_at timestamptz,
                     ADD COLUMN validation_attempts integer NOT NULL DEFAULT 0;

-- PROBE_PUBLISH: the sweeper asks a worker to settle a PUBLISH_UNKNOWN run by probing the target.
ALTER TABLE load_dispatch DROP CONSTRAINT load_dispatch_type_check,
    ADD CONSTRAINT load_dispatch_type_check CHECK (dispatch_type IN (
        'EXTRACT_PARTITION', 'VALIDATE_RUN', 'PUBLISH_RUN', 'VALIDATE_TARGET', 'REISSUE_PARTITION', 'PROBE_PUBLISH'));
