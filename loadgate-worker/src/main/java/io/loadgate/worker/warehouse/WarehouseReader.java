package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.JdbcValues;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricSet;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;

/**
 * Reads a business key's rows back from a warehouse table, as they are now, and measures them with the job's
 * metrics — the same calculator, over the same value classes, as the staged files were measured with.
 */
public final class WarehouseReader {
    private static final Pattern TYPE_NAME = Pattern.compile("[a-z0-9 (),]+");
    private static final int FETCH_SIZE = 10_000;

    private final WarehouseConnector connector;

    public WarehouseReader(WarehouseConnector connector) {
        this.connector = requireNonNull(connector, "connector is null");
    }

    /** @param table {@code schema.table} */
    public MetricSet measure(String table, String businessKeyColumn, String businessKey, ValidationSpec validation) {
        String[] parts = table.split("\\.");
        String qualified = WarehouseTable.quote(parts[0]) + "." + WarehouseTable.quote(parts[1]);
        try (Connection connection = connector.connect()) {
            // A cursor, so a large partition streams instead of being held in memory.
            connection.setAutoCommit(false);
            String type = businessKeyType(connection, qualified, businessKeyColumn);
            try (PreparedStatement select = connection.prepareStatement("SELECT * FROM " + qualified + " WHERE "
                    + WarehouseTable.quote(businessKeyColumn) + " = CAST(? AS " + type + ")")) {
                select.setFetchSize(FETCH_SIZE);
                select.setString(1, businessKey);
                try (ResultSet rs = select.executeQuery()) {
                    List<SourceColumn> columns = JdbcValues.describe(rs.getMetaData());
                    Schema schema = SourceSchemas.toIceberg(columns);
                    MetricCalculator calculator = new MetricCalculator(validation, schema);
                    GenericRecord template = GenericRecord.create(schema);
                    while (rs.next()) {
                        GenericRecord record = template.copy();
                        for (int i = 0; i < columns.size(); i++) {
                            record.set(i, JdbcValues.read(rs, i + 1, columns.get(i)));
                        }
                        calculator.accept(record);
                    }
                    connection.commit();
                    return calculator.result();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + qualified + ": " + e.getMessage(), e);
        }
    }

    static String businessKeyType(Connection connection, String qualified, String column) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                 WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped
                """)) {
            statement.setString(1, qualified);
            statement.setString(2, column);
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("table " + qualified + " does not exist or has no column " + column);
                }
                String type = rs.getString(1);
                if (!TYPE_NAME.matcher(type).matches()) {
                    throw new IllegalStateException("column " + column + " of " + qualified + " has type " + type
                            + ", which cannot be a business key");
                }
                return type;
            }
        }
    }
}
