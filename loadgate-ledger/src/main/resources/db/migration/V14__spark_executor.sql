-- A run of executor 'spark' (loadgate-spark): its partitions are its driver's Spark tasks and never dispatched; its
-- steps after extraction are dispatches that workers lease (executor 'worker' on load_dispatch), and its driver
-- beats the run (heartbeat_at) so that the sweeper ends a run whose driver is gone.
ALTER TABLE load_run DROP CONSTRAINT load_run_executor_check;
ALTER TABLE load_run ADD CONSTRAINT load_run_executor_check CHECK (executor IN ('http', 'worker', 'spark'));
