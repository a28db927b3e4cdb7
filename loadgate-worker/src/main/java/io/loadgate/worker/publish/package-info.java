/**
 * The Iceberg target: publishing staged files into Iceberg tables, probing for a publish token, reading a business
 * key back, rolling it back and listing the files a table references; without ledger calls. Steps and commands reach
 * it only through {@link io.loadgate.worker.target.Target} ({@code Targets.forJob}); the warehouse target is
 * {@code io.loadgate.worker.warehouse}.
 *
 * <p>Catalogs are opened once per worker process ({@code TargetCatalogs}) and shared: a catalog holds a connection
 * pool.
 */
package io.loadgate.worker.publish;
