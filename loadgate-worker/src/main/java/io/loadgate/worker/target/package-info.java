/**
 * The target seam: a job's {@link io.loadgate.worker.target.Target}, chosen once by
 * {@link io.loadgate.worker.target.Targets#forJob}. Setup, PUBLISH_RUN, the publish probe, VALIDATE_TARGET,
 * rollback and cleanup call it and never ask which kind of table they hold. The implementations are thin: an
 * Iceberg table ({@code worker.publish}) and a warehouse table ({@code worker.warehouse}); a Hive table comes from the
 * {@code loadgate-hive} module through a {@link io.loadgate.worker.target.TargetProvider}.
 */
package io.loadgate.worker.target;
