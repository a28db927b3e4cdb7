-- The afterRun a create sent (an extension): whether it sent one, and the run it was planned after (NULL: after no
-- run). A create's precondition is part of its request, so a create with the same Idempotency-Key and another afterRun
-- is refused as IDEMPOTENCY_KEY_REUSED rather than answered with a run made under another precondition. Runs created
-- before this column count as created without one.
ALTER TABLE load_run ADD COLUMN create_after boolean NOT NULL DEFAULT false;
ALTER TABLE load_run ADD COLUMN create_after_run uuid;
