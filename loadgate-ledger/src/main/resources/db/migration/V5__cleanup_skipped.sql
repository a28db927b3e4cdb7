-- When a cleaner last had to skip a run (its catalog or job could not be read...). Candidates are offered least
-- recently skipped first, so runs that keep being skipped cannot hold every batch and starve the others.
ALTER TABLE load_run ADD COLUMN cleanup_skipped_at timestamptz;
