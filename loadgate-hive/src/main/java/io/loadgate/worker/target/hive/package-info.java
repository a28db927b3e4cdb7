/**
 * {@code target.hive}: a Hive table in a Hive Metastore, behind the worker's {@link io.loadgate.worker.target.Target}
 * seam ({@link io.loadgate.worker.target.hive.HiveTargetProvider}). A publish points the business key's partition at
 * a directory holding exactly the ledger's data files of the run, fenced by the table's publish sequence (the
 * metastore's table-parameter compare-and-set) under the partition's metastore lock. With {@code publish:
 * insert_overwrite}, HiveServer2 copies the run's files into the partition with one {@code INSERT OVERWRITE} instead
 * ({@link io.loadgate.worker.target.hive.InsertOverwritePublisher}).
 */
package io.loadgate.worker.target.hive;
