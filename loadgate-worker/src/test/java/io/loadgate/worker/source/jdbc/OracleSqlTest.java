package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.PartitionBounds;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class OracleSqlTest {
    private static final SourceSpec TABLE = new SourceSpec("jdbc:oracle:thin:@//db:1521/ORCL", "loader", "ORA_PW", "SALES.ORDERS",
            null, List.of("ID", "AMOUNT"), "ID", 4, "REGION = :business_key", null);
    private static final ValidationSpec VALIDATION = new ValidationSpec(List.of("AMOUNT"), List.of("NAME"), List.of("NAME"),
            List.of("AMOUNT"), List.of("ID"));
    private static final List<SourceColumn> COLUMNS = List.of(SourceColumn.of("ID", ColumnType.LONG),
            new SourceColumn("AMOUNT", ColumnType.DECIMAL, 12, 2), SourceColumn.of("NAME", ColumnType.STRING));

    @Test
    void readsTheCurrentScn() {
        assertThat(OracleSql.CURRENT_SCN).isEqualTo("SELECT CURRENT_SCN FROM V$DATABASE");
    }

    @Test
    void everyStatementReadsAsOfTheScn() {
        OracleSql sql = new OracleSql(TABLE, "884422119");
        PartitionBounds range = new PartitionBounds("0001", BigInteger.valueOf(100), BigInteger.valueOf(200), false);

        assertThat(sql.describe().sql()).isEqualTo("SELECT * FROM SALES.ORDERS AS OF SCN 884422119 WHERE 1 = 0");
        assertThat(sql.stats("EU", VALIDATION, COLUMNS)).isEqualTo(new BoundSql(
                "SELECT COUNT(*), COUNT(*) - COUNT(ID), MIN(ID), MAX(ID), SUM(AMOUNT), MIN(NAME), MAX(NAME), COUNT(*) - COUNT(AMOUNT)"
                        + " FROM SALES.ORDERS AS OF SCN 884422119 WHERE (REGION = ?)", List.of("EU")));
        assertThat(sql.partitionCounts("EU", List.of(range), ColumnType.LONG)).isEqualTo(new BoundSql(
                "SELECT COUNT(CASE WHEN ID >= ? AND ID < ? THEN 1 END) FROM SALES.ORDERS AS OF SCN 884422119 WHERE (REGION = ?)",
                List.of(100L, 200L, "EU")));
        assertThat(sql.duplicateKeys("EU", List.of("ID"))).isEqualTo(new BoundSql(
                "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM SALES.ORDERS AS OF SCN 884422119"
                        + " WHERE (REGION = ?) GROUP BY ID) d", List.of("EU")));
        assertThat(sql.readPartition("EU", List.of("ID", "AMOUNT"), range.withExpectedRowCount(10), ColumnType.DECIMAL)).isEqualTo(new BoundSql(
                "SELECT ID, AMOUNT FROM SALES.ORDERS AS OF SCN 884422119 WHERE (REGION = ?) AND ID >= ? AND ID < ?",
                List.of("EU", new java.math.BigDecimal(100), new java.math.BigDecimal(200))));
        assertThat(sql.readPartition("EU", List.of("ID"), PartitionBounds.nullPartition().withExpectedRowCount(3), ColumnType.LONG).sql())
                .isEqualTo("SELECT ID FROM SALES.ORDERS AS OF SCN 884422119 WHERE (REGION = ?) AND ID IS NULL");
    }

    @Test
    void aQuerySourceNamesTheScnItself() {
        SourceSpec query = new SourceSpec("jdbc:oracle:thin:@//db:1521/ORCL", null, null, null,
                "SELECT o.ID, c.NAME FROM ORDERS AS OF SCN :scn o JOIN CUSTOMERS AS OF SCN :scn c ON c.ID = o.CUSTOMER_ID",
                null, "ID", 2, null, null);

        assertThat(new OracleSql(query, "42").describe().sql()).isEqualTo(
                "SELECT * FROM (SELECT o.ID, c.NAME FROM ORDERS AS OF SCN 42 o JOIN CUSTOMERS AS OF SCN 42 c ON c.ID = o.CUSTOMER_ID) src WHERE 1 = 0");
        SourceSpec withoutScn = new SourceSpec("jdbc:oracle:thin:@//db:1521/ORCL", null, null, null, "SELECT ID FROM ORDERS",
                null, "ID", 2, null, null);
        assertThatThrownBy(() -> new OracleSql(withoutScn, "42")).isInstanceOf(SourceException.class)
                .hasMessage("an Oracle source.query must read every table AS OF SCN :scn");
    }

    @Test
    void anScnIsDigitsOnly() {
        assertThatThrownBy(() -> new OracleSql(TABLE, "1; DROP TABLE X")).hasMessage("an SCN is digits only, got 1; DROP TABLE X");
    }
}
