-- A partition whose rows come from a job's mapper (a user's program: one input line gives zero, one or several
-- rows) is reconciled in two steps: its lines read must be its expected_row_count (the lines counted at planning),
-- and its chunks' rows, staged or rejected, the rows the mapper emitted. Each chunk report carries the three counts
-- (the same for every chunk of the partition); the partition keeps them once it is judged. NULL: no mapper.
ALTER TABLE load_file ADD COLUMN lines_read bigint, ADD COLUMN lines_skipped bigint, ADD COLUMN rows_emitted bigint;
ALTER TABLE load_file ADD CONSTRAINT load_file_mapper_counts_check CHECK (
    num_nonnulls(lines_read, lines_skipped, rows_emitted) IN (0, 3)
    AND (lines_read IS NULL
         OR (lines_skipped BETWEEN 0 AND lines_read AND rows_emitted >= lines_read - lines_skipped)));
ALTER TABLE load_partition ADD COLUMN lines_read bigint, ADD COLUMN lines_skipped bigint, ADD COLUMN rows_emitted bigint;
ALTER TABLE load_partition ADD CONSTRAINT load_partition_mapper_counts_check CHECK (
    num_nonnulls(lines_read, lines_skipped, rows_emitted) IN (0, 3)
    AND (lines_read IS NULL
         OR (lines_skipped BETWEEN 0 AND lines_read AND rows_emitted >= lines_read - lines_skipped)));
