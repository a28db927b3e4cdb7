/**
 * Publishing staged files into Iceberg target tables, without ledger calls.
 *
 * <p>Wiring, once per worker process: {@code TargetCatalog.open(CatalogConfig...)} shared by an
 * {@link io.loadgate.worker.publish.IcebergPublisher} and a {@link io.loadgate.worker.publish.TargetReader}.
 * PUBLISH_RUN: {@code publish/claim} with a fresh token, {@code publish(PublishRequest)}, then
 * {@code publish/result} with the outcome's status, errorCode, message and targetRef — never publish again
 * unless the outcome was FAILED_PUBLISH. A PUBLISH_UNKNOWN run is resolved with {@code probe}. VALIDATE_TARGET
 * reads the run's snapshot ({@code targetRef}) back with {@code TargetReader.readBusinessKey}. Cleanup skips every
 * location in {@code TargetReader.referencedDataFiles}, whatever the run's status.
 */
package io.loadgate.worker.publish;
