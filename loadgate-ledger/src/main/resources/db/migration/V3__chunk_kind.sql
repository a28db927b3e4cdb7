-- A partition's output may hold, besides its data chunks, one chunk of the rows its job's transforms rejected,
-- kept with the reason. Both kinds count towards the partition's expected rows (every source row is accounted
-- for); only DATA chunks are ever published.
ALTER TABLE load_file ADD COLUMN kind text NOT NULL DEFAULT 'DATA';
ALTER TABLE load_file ADD CONSTRAINT load_file_kind_check CHECK (kind IN ('DATA', 'REJECTS'));
