package io.loadgate.worker.publish;

import org.apache.iceberg.exceptions.CleanableFailure;

/**
 * A commit refused by its {@link PublishFence} before it was sent: nothing landed (so FAILED_PUBLISH, and Iceberg may
 * remove the manifests it wrote for the attempt), and nothing may be retried.
 */
public final class PublishFencedException extends RuntimeException implements CleanableFailure {
    public PublishFencedException(String message) {
        super(message);
    }
}
