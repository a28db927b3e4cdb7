-- How many rows a partition's owner has read so far in its current attempt, sent with its heartbeats. Chunks are
-- reported only once the whole partition is written (a report needs the chunk count), so without this a large
-- partition shows no progress until it is done. NULL: not known yet in this attempt (a claim clears it).
ALTER TABLE load_partition ADD COLUMN rows_read bigint;
ALTER TABLE load_partition ADD CONSTRAINT load_partition_rows_read_check CHECK (rows_read >= 0);
