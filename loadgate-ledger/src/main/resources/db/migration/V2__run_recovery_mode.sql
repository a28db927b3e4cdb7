-- A run may carry its job's own recovery mode; NULL means the server's recovery.mode decides.
ALTER TABLE load_run ADD COLUMN recovery_mode text;
ALTER TABLE load_run ADD CONSTRAINT load_run_recovery_mode_check CHECK (recovery_mode IN ('FAIL', 'REISSUE'));
