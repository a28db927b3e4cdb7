package io.loadgate.worker.target.hive;

import io.loadgate.worker.publish.PublishFencedException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metastore's EXCLUSIVE lock on one partition, held by a publish or a rollback from its last check of the
 * partition to its change, so that two Loadgate processes never interleave those steps for one business key. The lock
 * is advisory (a writer that takes none is not stopped) and, without a heartbeat, the metastore's housekeeper may
 * expire it after {@code metastore.txn.timeout} (300 s by default); the publish sequence's compare-and-set is what
 * holds when it does (see {@link HivePublisher}).
 */
final class KeyLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyLock.class);
    private static final long POLL_MILLIS = 100;

    private final IMetaStoreClient client;
    private final long lockId;

    private KeyLock(IMetaStoreClient client, long lockId) {
        this.client = client;
        this.lockId = lockId;
    }

    /**
     * Waits for the lock until {@code deadline}.
     *
     * @throws PublishFencedException when the deadline passes first (the waiting request is withdrawn)
     */
    static KeyLock acquire(IMetaStoreClient client, HiveTable table, String partitionName, Instant deadline)
            throws TException {
        LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.PARTITION, table.database());
        component.setTablename(table.name());
        component.setPartitionname(partitionName);
        component.setOperationType(DataOperationType.NO_TXN);
        component.setIsTransactional(false);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "loadgate", host());
        LockResponse response = client.lock(request);
        while (response.getState() == LockState.WAITING) {
            if (Instant.now().isAfter(deadline)) {
                client.unlock(response.getLockid());
                throw new PublishFencedException("the lock on partition " + partitionName + " of " + table
                        + " was not granted before the deadline " + deadline + ": another publish or rollback of the"
                        + " business key holds it");
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                client.unlock(response.getLockid());
                Thread.currentThread().interrupt();
                throw new PublishFencedException("interrupted while waiting for the lock on " + partitionName);
            }
            response = client.checkLock(response.getLockid());
        }
        if (response.getState() != LockState.ACQUIRED) {
            throw new TException("the metastore answered " + response.getState() + " to the lock on partition "
                    + partitionName + " of " + table);
        }
        return new KeyLock(client, response.getLockid());
    }

    @Override
    public void close() {
        try {
            client.unlock(lockId);
        } catch (TException | RuntimeException e) {
            // The change is made or refused already; a lock left behind expires with metastore.txn.timeout.
            LOG.warn("could not release metastore lock {}: {}", lockId, e.toString());
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}
