package io.loadgate.worker.target.hive;

import static io.loadgate.worker.publish.IcebergPublisher.BUSINESS_KEY_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.JOB_KEY_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_GENERATION_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_TOKEN_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.RUN_ID_PROPERTY;
import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishFencedException;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.Warehouse;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.thrift.TException;

/**
 * Publishes, probes and rolls back one business key's partition of a {@link HiveTable}.
 *
 * <p><b>The fence.</b> The metastore has no compare-and-set on a partition (a wrong expected value on
 * {@code alter_partition} is applied anyway), but it has one on a table parameter (HIVE-26882): an
 * {@code alter_table} whose environment names an expected value is refused unless the stored value equals it, in the
 * same metastore transaction as the change. So every publish and rollback of the table:
 * <ol>
 *   <li>takes the metastore's EXCLUSIVE lock on the key's partition ({@link KeyLock});</li>
 *   <li>reads the table: its publish sequence {@value HiveTable#SEQUENCE} and the key's recorded generation, and
 *       refuses a generation below the recorded one, and a passed deadline;</li>
 *   <li>claims the next sequence number with the compare-and-set, writing the key's new generation in the same
 *       change: a publisher that read a stale table (another key's publish, a later generation of this key) is
 *       refused here and reads again, and a lower generation can never be recorded after a higher one;</li>
 *   <li>points the partition at its new directory ({@code add_partition} or {@code alter_partition}), with the run
 *       id, publish token, generation and claimed sequence number in the partition's parameters.</li>
 * </ol>
 * The lock keeps two Loadgate processes from interleaving 2–4 on one key; the compare-and-set keeps the generation
 * order even when a lock was lost (expired while its holder was paused) or not taken. What neither can exclude is a
 * holder that stalls between its claim (3) and its swap (4) for longer than its lock lives and its deadline: its swap
 * can still land later. That window is one metastore call, after a local deadline check; the claimed sequence number
 * in the partition lets anyone see which swap is the newer.
 */
final class HivePublisher {
    /** The sequence number the publish or rollback claimed, in the partition's parameters and as the targetRef. */
    static final String SEQUENCE_PROPERTY = "loadgate.publish-seq";
    /**
     * When the publisher sent the swap (an ISO instant), in the partition's parameters: the metastore keeps a
     * {@code transient_lastDdlTime} the partition given to {@code alter_partition} carries, and a replace carries the
     * replaced partition's, so that time could date a replace by the first publish.
     */
    static final String COMMITTED_AT_PROPERTY = "loadgate.committed-at";
    private static final int CLAIM_ATTEMPTS = 20;
    /**
     * How long a rollback waits for the key's lock: an operator's command, so it gives up after a publish's usual
     * length rather than hang behind a stuck one.
     */
    private static final Duration ROLLBACK_LOCK_WAIT = Duration.ofSeconds(60);

    private final IMetaStoreClient client;
    private final HiveTable table;

    HivePublisher(IMetaStoreClient client, HiveTable table) {
        this.client = requireNonNull(client, "client is null");
        this.table = requireNonNull(table, "table is null");
    }

    /** What one publish sets: the partition's values and directory, and what it records in its parameters. */
    record Swap(String runId, String jobKey, String businessKey, UUID publishToken, PublishFence fence,
                List<String> values, String location) {
        Swap {
            requireNonNull(runId, "runId is null");
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(businessKey, "businessKey is null");
            requireNonNull(publishToken, "publishToken is null");
            requireNonNull(fence, "fence is null");
            values = List.copyOf(values);
            requireNonNull(location, "location is null");
        }
    }

    static String generationKey(String jobKey, String businessKey) {
        return PUBLISH_GENERATION_PROPERTY + "." + jobKey + "." + businessKey;
    }

    String partitionName(List<String> values) throws MetaException {
        return Warehouse.makePartName(table.partitionKeys(), values);
    }

    PublishOutcome publish(Swap swap) {
        String partitionName;
        long sequence;
        Partition existing;
        try {
            partitionName = partitionName(swap.values());
        } catch (MetaException e) {
            return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, "partition of key " + swap.businessKey() + ": " + e);
        }
        String where = "partition " + partitionName + " of Hive table " + table;
        KeyLock lock;
        try {
            lock = KeyLock.acquire(client, table, partitionName, swap.fence().deadline());
        } catch (PublishFencedException e) {
            return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, e.getMessage());
        } catch (TException | RuntimeException e) {
            return PublishOutcome.failed(ErrorCode.COMMIT_CONFLICT, "publish of run " + swap.runId() + " to " + where
                    + " could not lock the partition: " + e);
        }
        // The swap runs under the lock too: it must land or be refused before another publisher of the key reads.
        try (lock) {
            try {
                existing = partition(swap.values()).orElse(null);
                if (existing != null) {
                    swap.fence().checkNotBehind(longParameter(existing.getParameters(), PUBLISH_GENERATION_PROPERTY),
                            where);
                }
                sequence = claim(swap.fence(), generationKey(swap.jobKey(), swap.businessKey()), where);
            } catch (PublishFencedException e) {
                return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, e.getMessage());
            } catch (TException | RuntimeException e) {
                // The partition is untouched: only the table's sequence may have advanced, which changes no data.
                return PublishOutcome.failed(ErrorCode.COMMIT_CONFLICT, "publish of run " + swap.runId() + " to "
                        + where + " refused before the swap: " + e);
            }
            return swap(swap, existing, sequence, where);
        }
    }

    private PublishOutcome swap(Swap swap, Partition existing, long sequence, String where) {
        Map<String, String> parameters = new HashMap<>(existing == null ? Map.of() : existing.getParameters());
        parameters.put(RUN_ID_PROPERTY, swap.runId());
        parameters.put(PUBLISH_TOKEN_PROPERTY, swap.publishToken().toString());
        parameters.put(JOB_KEY_PROPERTY, swap.jobKey());
        // As the ledger spells it: the values alone cannot tell a file source's 2026-12-01T05 from 2026-12-01T05:00:00.
        parameters.put(BUSINESS_KEY_PROPERTY, swap.businessKey());
        parameters.put(PUBLISH_GENERATION_PROPERTY, Long.toString(swap.fence().generation()));
        parameters.put(SEQUENCE_PROPERTY, Long.toString(sequence));
        try {
            swap.fence().checkDeadline();
        } catch (PublishFencedException e) {
            return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, e.getMessage());
        }
        parameters.put(COMMITTED_AT_PROPERTY, Instant.now().toString());
        try {
            if (existing == null) {
                Table current = client.getTable(table.database(), table.name());
                Partition partition = new Partition();
                partition.setDbName(table.database());
                partition.setTableName(table.name());
                partition.setValues(new ArrayList<>(swap.values()));
                StorageDescriptor sd = new StorageDescriptor(current.getSd());
                sd.setLocation(swap.location());
                partition.setSd(sd);
                partition.setParameters(parameters);
                client.add_partition(partition);
            } else {
                Partition changed = new Partition(existing);
                changed.getSd().setLocation(swap.location());
                changed.setParameters(parameters);
                client.alter_partition(table.database(), table.name(), changed, null);
            }
        } catch (AlreadyExistsException | InvalidOperationException | NoSuchObjectException e) {
            // Answered refusals: the metastore's transaction rolled back, the partition is as it was.
            return PublishOutcome.failed(ErrorCode.COMMIT_CONFLICT, where + " refused the swap to " + swap.location()
                    + ": " + e);
        } catch (MetaException e) {
            return PublishOutcome.failed(ErrorCode.COMMIT_CONFLICT, where + " refused the swap to " + swap.location()
                    + ": " + e.getMessage());
        } catch (TException | RuntimeException e) {
            // A lost connection or a timeout: the swap may have been applied. The probe reads the partition.
            return PublishOutcome.unknown(ErrorCode.COMMIT_INTERRUPTED, "the swap of " + where + " to "
                    + swap.location() + " got no answer (" + e + "); look for publish token " + swap.publishToken()
                    + " in its parameters");
        }
        return PublishOutcome.published(sequence, where + " points at " + swap.location() + " (publish sequence "
                + sequence + ", generation " + swap.fence().generation() + ")");
    }

    /**
     * Advances the table's publish sequence with the metastore's compare-and-set, recording the fence's generation
     * under {@code generationKey} in the same change; another key's claim between the read and
     * the set makes it read again.
     *
     * @return the claimed sequence number
     */
    private long claim(PublishFence fence, String generationKey, String where) throws TException {
        for (int attempt = 1; ; attempt++) {
            Table current = client.getTable(table.database(), table.name());
            Long sequence = longParameter(current.getParameters(), HiveTable.SEQUENCE);
            if (sequence == null) {
                throw new MetaException("Hive table " + table + " has no " + HiveTable.SEQUENCE + " parameter: run"
                        + " loadgate setup for it first");
            }
            fence.checkNotBehind(longParameter(current.getParameters(), generationKey), where);
            fence.checkDeadline();
            current.getParameters().put(generationKey, Long.toString(fence.generation()));
            current.getParameters().put(HiveTable.SEQUENCE, Long.toString(sequence + 1));
            try {
                client.alter_table_with_environmentContext(table.database(), table.name(), current,
                        expecting(sequence));
                return sequence + 1;
            } catch (MetaException e) {
                if (!isCasRefusal(e) || attempt == CLAIM_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Rollback: claims the next sequence number only if the table's sequence is still {@code expectedSequence} (what it
     * was when the key's contents were found: any publish since has advanced it), then drops the partition without
     * its data.
     *
     * @return the claimed sequence number
     * @throws IllegalStateException when the table changed since, or the partition no longer carries {@code token}
     */
    long dropPartition(List<String> values, long expectedSequence, String expectedToken) throws TException {
        String partitionName = partitionName(values);
        try (KeyLock lock = KeyLock.acquire(client, table, partitionName, Instant.now().plus(ROLLBACK_LOCK_WAIT))) {
            Table current = client.getTable(table.database(), table.name());
            Long sequence = longParameter(current.getParameters(), HiveTable.SEQUENCE);
            Optional<Partition> partition = partition(values);
            String token = partition.map(p -> p.getParameters().get(PUBLISH_TOKEN_PROPERTY)).orElse(null);
            if (sequence == null || sequence != expectedSequence || partition.isEmpty()
                    || !Objects.equals(token, expectedToken)) {
                throw new IllegalStateException("Hive table " + table + " changed since its partition " + partitionName
                        + " was read (publish sequence " + sequence + ", expected " + expectedSequence + ")");
            }
            current.getParameters().put(HiveTable.SEQUENCE, Long.toString(expectedSequence + 1));
            try {
                client.alter_table_with_environmentContext(table.database(), table.name(), current,
                        expecting(expectedSequence));
            } catch (MetaException e) {
                if (isCasRefusal(e)) {
                    throw new IllegalStateException("Hive table " + table + " changed while rolling back: "
                            + e.getMessage(), e);
                }
                throw e;
            }
            // External table: the partition's files stay, for cleanup once the run's retention is over.
            client.dropPartition(table.database(), table.name(), new ArrayList<>(values), false);
            return expectedSequence + 1;
        }
    }

    /** The partition of {@code values}, read afresh. */
    Optional<Partition> partition(List<String> values) throws TException {
        try {
            return Optional.of(client.getPartition(table.database(), table.name(), new ArrayList<>(values)));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        }
    }

    long sequence() throws TException {
        Long sequence = longParameter(client.getTable(table.database(), table.name()).getParameters(),
                HiveTable.SEQUENCE);
        return sequence == null ? 0 : sequence;
    }

    /**
     * Looks for the token among the table's partitions (the probe is not told the key, so it reads them all). A
     * partition keeps only its latest publish's parameters: a token replaced by a later publish of the key is not
     * found, which the ledger allows only once this attempt was settled.
     */
    ProbeResult probe(String runId, UUID publishToken) throws TException {
        return probe(runId, publishToken, SEQUENCE_PROPERTY);
    }

    /** As {@link #probe(String, UUID)}, the found publish's reference read from the parameter {@code refProperty}. */
    ProbeResult probe(String runId, UUID publishToken, String refProperty) throws TException {
        List<Partition> partitions;
        try {
            partitions = client.listPartitions(table.database(), table.name(), (short) -1);
        } catch (NoSuchObjectException e) {
            return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, "Hive table " + table + " does not exist, so"
                    + " no partition carries publish token " + publishToken);
        }
        for (Partition partition : partitions) {
            Map<String, String> parameters = partition.getParameters();
            if (!publishToken.toString().equals(parameters.get(PUBLISH_TOKEN_PROPERTY))) {
                continue;
            }
            String name = partitionName(partition.getValues());
            String recordedRun = parameters.get(RUN_ID_PROPERTY);
            if (!runId.equals(recordedRun)) {
                throw new IllegalStateException("partition " + name + " of Hive table " + table + " carries publish"
                        + " token " + publishToken + " but run id " + recordedRun + ", not " + runId);
            }
            Long sequence = longParameter(parameters, refProperty);
            return new ProbeResult(ProbeResult.Status.PUBLISHED, sequence == null ? 0 : sequence, "partition " + name
                    + " of Hive table " + table + " points at " + partition.getSd().getLocation() + " and carries"
                    + " publish token " + publishToken + " of run " + runId);
        }
        return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, "none of the " + partitions.size()
                + " partitions of Hive table " + table + " carries publish token " + publishToken);
    }

    private static EnvironmentContext expecting(long sequence) {
        return new EnvironmentContext(new HashMap<>(Map.of(
                hive_metastoreConstants.EXPECTED_PARAMETER_KEY, HiveTable.SEQUENCE,
                hive_metastoreConstants.EXPECTED_PARAMETER_VALUE, Long.toString(sequence))));
    }

    /** The metastore tells a lost compare-and-set only by its message (HiveAlterHandler, ObjectStore). */
    private static boolean isCasRefusal(MetaException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return message.contains("has been modified") || message.contains("is different");
    }

    private static Long longParameter(Map<String, String> parameters, String key) {
        String value = parameters == null ? null : parameters.get(key);
        return value == null ? null : Long.valueOf(value);
    }
}
