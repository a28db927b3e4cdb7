package io.loadgate.ledger.partition;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/**
 * A partition owner's sign of life, with how many rows it has read so far in its attempt when it knows
 * ({@code rowsRead} null: a caller that only keeps its claim alive, as the seed API's clients do).
 */
public record PartitionHeartbeat(UUID claimToken, Long rowsRead) {
    public PartitionHeartbeat {
        requireNonNull(claimToken, "claimToken is null");
        if (rowsRead != null && rowsRead < 0) {
            throw new IllegalArgumentException("rowsRead is negative: " + rowsRead);
        }
    }
}
