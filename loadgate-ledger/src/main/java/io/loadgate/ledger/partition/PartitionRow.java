package io.loadgate.ledger.partition;

import io.loadgate.api.PartitionStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** A partition as locked for a decision. */
record PartitionRow(String partitionId, PartitionStatus status, UUID claimToken, int attemptCount,
                    long expectedRowCount) {

    static final String LOCK = """
            SELECT partition_id, status, claim_token, attempt_count, expected_row_count
              FROM load_partition WHERE run_id = ? AND partition_id = ? FOR UPDATE
            """;

    static PartitionRow map(ResultSet rs) throws SQLException {
        return new PartitionRow(rs.getString("partition_id"), PartitionStatus.valueOf(rs.getString("status")),
                rs.getObject("claim_token", UUID.class), rs.getInt("attempt_count"), rs.getLong("expected_row_count"));
    }
}
