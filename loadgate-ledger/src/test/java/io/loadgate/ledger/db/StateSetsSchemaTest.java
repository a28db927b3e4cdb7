package io.loadgate.ledger.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The schema the migrations build and the api's enums name the same states: the partial unique index that allows one
 * active run per job and business key covers exactly {@link RunStatus#ACTIVE}, and each status column's check
 * constraint allows exactly its enum's constants. A constant added to an enum without its migration (or the
 * reverse) fails here, not in production on the first row that uses it.
 */
class StateSetsSchemaTest {
    private static final Pattern QUOTED = Pattern.compile("'([A-Za-z_]+)'");
    private static HikariDataSource dataSource;

    @BeforeAll
    static void migrate() {
        var db = TestDatabases.create();
        dataSource = ConnectionPool.open(db.jdbcUrl(), db.user(), db.password(), 2);
        LedgerSchema.migrate(dataSource);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    void theOneActiveRunIndexCoversExactlyTheActiveStates() throws SQLException {
        String definition = single("SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = ?",
                LedgerSchema.SCHEMA, "load_run_one_active");
        assertThat(definition).as(definition).contains("UNIQUE").contains("(job_key, business_key)");
        assertThat(quoted(definition)).as(definition).isEqualTo(names(RunStatus.ACTIVE));
        assertThat(RunStatus.TERMINAL).as("terminal is the rest").doesNotContainAnyElementsOf(RunStatus.ACTIVE)
                .hasSize(RunStatus.values().length - RunStatus.ACTIVE.size());
    }

    @Test
    void everyStatusColumnAllowsExactlyItsEnum() throws SQLException {
        assertThat(allowed("load_run_status_check")).isEqualTo(names(Arrays.asList(RunStatus.values())));
        assertThat(allowed("load_partition_status_check")).isEqualTo(names(Arrays.asList(PartitionStatus.values())));
        assertThat(allowed("load_dispatch_status_check")).isEqualTo(names(Arrays.asList(DispatchStatus.values())));
        assertThat(allowed("load_dispatch_type_check")).isEqualTo(names(Arrays.asList(DispatchType.values())));
        assertThat(allowed("load_file_kind_check")).isEqualTo(names(Arrays.asList(ChunkKind.values())));
    }

    private static Set<String> allowed(String constraint) throws SQLException {
        String definition = single("""
                SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                 WHERE n.nspname = ? AND c.conname = ?
                """, LedgerSchema.SCHEMA, constraint);
        return quoted(definition);
    }

    private static Set<String> quoted(String definition) {
        Set<String> names = new TreeSet<>();
        Matcher m = QUOTED.matcher(definition);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static Set<String> names(Collection<? extends Enum<?>> states) {
        return states.stream().map(Enum::name).collect(Collectors.toCollection(TreeSet::new));
    }

    private static String single(String sql, String... parameters) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setString(i + 1, parameters[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("a row for " + String.join(", ", parameters)).isTrue();
                return rs.getString(1);
            }
        }
    }
}
