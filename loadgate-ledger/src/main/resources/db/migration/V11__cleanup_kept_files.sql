-- How many staged files a cleanup kept because the target table still referenced them. A cleaned run that kept
-- files is offered again once a later run replaced its key (or its key was rolled back) long enough ago that the
-- table's old snapshots have expired: only then can those files go. NULL: cleaned before this was recorded.
ALTER TABLE load_run ADD COLUMN cleanup_kept_files integer;
