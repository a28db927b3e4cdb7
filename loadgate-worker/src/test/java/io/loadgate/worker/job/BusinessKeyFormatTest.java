package io.loadgate.worker.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.publish.TargetTable;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class BusinessKeyFormatTest {
    private static String canonical(Type type, String key) {
        return BusinessKeyFormat.canonical("k", type, key);
    }

    @Test
    void aDateKeyIsIsoWhetherGivenWithOrWithoutDashes() {
        assertThat(canonical(Types.DateType.get(), "2026-11-25")).isEqualTo("2026-11-25");
        assertThat(canonical(Types.DateType.get(), "20261125")).isEqualTo("2026-11-25");
    }

    @Test
    void wordsAndImpossibleDatesAreRefusedWithWhatToWrite() {
        for (String key : new String[] {"yesterday", "today", "2026-13-01", "20261301", "2026-11-25T00:00", "261125"}) {
            assertThatThrownBy(() -> canonical(Types.DateType.get(), key)).as(key)
                    .isInstanceOf(JobSpecException.class)
                    .hasMessageStartingWith("business key '" + key + "' is not a date for column k")
                    .hasMessageContaining("YYYY-MM-DD").hasMessageNotContaining("\n");
        }
    }

    @Test
    void numbersHaveOneWrittenForm() {
        assertThat(canonical(Types.IntegerType.get(), "007")).isEqualTo("7");
        assertThat(canonical(Types.LongType.get(), "-0042")).isEqualTo("-42");
        assertThat(canonical(Types.DecimalType.of(8, 2), "12")).isEqualTo("12.00");
        assertThat(canonical(Types.DecimalType.of(8, 2), "12.5")).isEqualTo("12.50");
        assertThat(canonical(Types.DoubleType.get(), "1.50")).isEqualTo("1.5");
        assertThatThrownBy(() -> canonical(Types.DecimalType.of(8, 2), "12.345")).hasMessageContaining("at most 2");
        assertThatThrownBy(() -> canonical(Types.IntegerType.get(), "3000000000")).isInstanceOf(JobSpecException.class);
        assertThatThrownBy(() -> canonical(Types.DoubleType.get(), "NaN")).isInstanceOf(JobSpecException.class);
        assertThatThrownBy(() -> canonical(Types.IntegerType.get(), "1.0")).isInstanceOf(JobSpecException.class);
    }

    @Test
    void timestampsAreWrittenInFullAndInstantsInUtc() {
        Type local = Types.TimestampType.withoutZone();
        Type zoned = Types.TimestampType.withZone();
        assertThat(canonical(local, "2026-11-25T10:00")).isEqualTo("2026-11-25T10:00:00");
        assertThat(canonical(local, "2026-11-25")).isEqualTo("2026-11-25T00:00:00");
        assertThat(canonical(local, "2026-11-25T10:00:00.250000")).isEqualTo("2026-11-25T10:00:00.25");
        assertThat(canonical(zoned, "2026-11-25T10:00:00-05:00")).isEqualTo("2026-11-25T15:00:00Z");
        assertThat(canonical(zoned, "2026-11-25T15:00Z")).isEqualTo("2026-11-25T15:00:00Z");
        assertThatThrownBy(() -> canonical(zoned, "2026-11-25T10:00:00")).hasMessageContaining("offset");
    }

    @Test
    void textIsKeptAsGivenAndBooleansAreLowerCase() {
        assertThat(canonical(Types.StringType.get(), "EU-West_1")).isEqualTo("EU-West_1");
        assertThat(canonical(Types.BooleanType.get(), "TRUE")).isEqualTo("true");
        assertThatThrownBy(() -> canonical(Types.BooleanType.get(), "yes")).isInstanceOf(JobSpecException.class);
        assertThatThrownBy(() -> canonical(Types.BinaryType.get(), "abc")).hasMessageContaining("cannot be");
    }

    @Test
    void aColumnTheSchemaLacksIsNamedWithTheColumnsThereAre() {
        Schema schema = new Schema(Types.NestedField.optional(1, "day", Types.DateType.get()));
        assertThat(BusinessKeyFormat.canonical(schema, "day", "20261125")).isEqualTo("2026-11-25");
        assertThatThrownBy(() -> BusinessKeyFormat.canonical(schema, "business_day", "20261125"))
                .isInstanceOf(JobSpecException.class).hasMessageContaining("business_day").hasMessageContaining("[day]");
    }

    /** Every canonical form of a type an Iceberg partition can hold is one the publisher parses back. */
    @Test
    void theIcebergPublisherParsesEveryCanonicalForm() {
        Map<Type, String> keys = Map.of(Types.DateType.get(), "20261125", Types.IntegerType.get(), "007",
                Types.LongType.get(), "42", Types.DecimalType.of(8, 2), "12", Types.StringType.get(), "eu",
                Types.BooleanType.get(), "TRUE", Types.DoubleType.get(), "1.50");
        keys.forEach((type, key) -> {
            TargetTable table = new TargetTable(TableIdentifier.of("lake", "t"),
                    new Schema(Types.NestedField.optional(1, "k", type)), "k");
            assertThat(table.businessKeyFilter(canonical(type, key))).as(type.toString()).isNotNull();
        });
    }

    /** Why RunSubmitter refuses a timestamp key for an Iceberg target before the run: its publisher could not. */
    @Test
    void anIcebergPartitionCannotHoldATimestampKey() {
        Type type = Types.TimestampType.withoutZone();
        TargetTable table = new TargetTable(TableIdentifier.of("lake", "t"),
                new Schema(Types.NestedField.optional(1, "k", type)), "k");
        assertThatThrownBy(() -> table.businessKeyFilter(canonical(type, "2026-11-25T10:00")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
