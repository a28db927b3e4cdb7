-- The Idempotency-Key a caller sent with POST /v1/runs (an extension): the same key from the same caller returns the
-- run it created instead of a second run or a 409. Scoped by created_by (role and token id), so two callers' keys
-- never meet.
ALTER TABLE load_run ADD COLUMN create_key text;
CREATE UNIQUE INDEX load_run_create_key ON load_run (created_by, create_key) WHERE create_key IS NOT NULL;
