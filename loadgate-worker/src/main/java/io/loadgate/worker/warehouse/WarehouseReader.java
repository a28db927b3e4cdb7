package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricSet;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/**
 * Reads a business key's rows back from a warehouse table, as they are now, and measures them with the job's
 * metrics — the same calculator, over the same value classes, as the staged files were measured with. The staged
 * columns say what each value is: a database need not tell (MariaDB keeps a timestamp with time zone as a UTC
 * datetime).
 */
public final class WarehouseReader {
    private static final int FETCH_SIZE = 10_000;

    private final WarehouseConnector connector;

    public WarehouseReader(WarehouseConnector connector) {
        this.connector = requireNonNull(connector, "connector is null");
    }

    /** @throws IllegalStateException when the table cannot be read, or no longer has the staged columns */
    public MetricSet measure(WarehouseTable table, String businessKey, ValidationSpec validation) {
        requireNonNull(table, "table is null");
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(validation, "validation is null");
        WarehouseDialect dialect = connector.dialect();
        String qualified = table.qualifiedName(dialect);
        List<SourceColumn> columns = table.columns().columns().stream().map(WarehouseReader::column).toList();
        try (Connection connection = connector.connect()) {
            WarehousePublisher.checkColumns(connection, dialect, table);
            // A cursor, so a large partition streams instead of being held in memory.
            connection.setAutoCommit(false);
            try (PreparedStatement select = connection.prepareStatement(table.selectBusinessKey(dialect))) {
                select.setFetchSize(FETCH_SIZE);
                select.setString(1, businessKey);
                try (ResultSet rs = select.executeQuery()) {
                    MetricCalculator calculator = new MetricCalculator(validation, table.columns());
                    GenericRecord template = GenericRecord.create(table.columns());
                    while (rs.next()) {
                        GenericRecord record = template.copy();
                        for (int i = 0; i < columns.size(); i++) {
                            record.set(i, dialect.read(rs, i + 1, columns.get(i)));
                        }
                        calculator.accept(record);
                    }
                    connection.commit();
                    return calculator.result();
                }
            }
        } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException("cannot read " + qualified + ": " + e.getMessage(), e);
        }
    }

    /** The staged column as the reader of a source column of that type would yield it. */
    private static SourceColumn column(Types.NestedField field) {
        return switch (field.type().typeId()) {
            case INTEGER -> SourceColumn.of(field.name(), ColumnType.INT);
            case LONG -> SourceColumn.of(field.name(), ColumnType.LONG);
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) field.type();
                yield new SourceColumn(field.name(), ColumnType.DECIMAL, decimal.precision(), decimal.scale());
            }
            case FLOAT -> SourceColumn.of(field.name(), ColumnType.FLOAT);
            case DOUBLE -> SourceColumn.of(field.name(), ColumnType.DOUBLE);
            case STRING -> SourceColumn.of(field.name(), ColumnType.STRING);
            case BOOLEAN -> SourceColumn.of(field.name(), ColumnType.BOOLEAN);
            case DATE -> SourceColumn.of(field.name(), ColumnType.DATE);
            case TIMESTAMP -> SourceColumn.of(field.name(), ((Types.TimestampType) field.type()).shouldAdjustToUTC()
                    ? ColumnType.TIMESTAMPTZ : ColumnType.TIMESTAMP);
            case BINARY -> SourceColumn.of(field.name(), ColumnType.BINARY);
            default -> throw new IllegalArgumentException("a warehouse column cannot hold " + field.type());
        };
    }
}
