package io.loadgate.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Test databases on the machine's PostgreSQL do not outlive their JVM, however it ends. */
class TestDatabasesTest {

    @Test
    void aJvmWhoseTestsFailedDropsItsDatabasesAtExit() throws Exception {
        assumeMachineServer();
        Process child = child("fail");
        List<String> names = names(child, 2);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as("the child's test failed").isNotZero();
        // A DROP DATABASE waits for a checkpoint, which a busy server may take longer over than the JVM waits;
        // the server finishes it anyway.
        Awaitility.await().atMost(Duration.ofMinutes(3)).untilAsserted(() ->
                assertThat(existing(names)).as("dropped by the failed JVM's exit").isEmpty());
    }

    @Test
    void aKilledJvmsDatabasesAreDroppedByTheNextJvm() throws Exception {
        assumeMachineServer();
        Process child = child("hang");
        List<String> names = names(child, 2);
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(existing(names)).as("a SIGKILL runs no exit hook").containsExactlyInAnyOrderElementsOf(names);

        TestDatabases.dropAbandoned();
        assertThat(existing(names)).as("the dead JVM's databases").isEmpty();
    }

    @Test
    void theDatabasesOfALiveJvmAreNotTouched() throws Exception {
        assumeMachineServer();
        var mine = TestDatabases.create();
        // A name from before names carried the pid, as other builds may still be making right now.
        String legacy = "lg_test_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        admin("CREATE DATABASE " + legacy);
        try {
            TestDatabases.dropAbandoned();
            assertThat(existing(List.of(mine.name(), legacy))).as("only a legacy name older than a day is dropped")
                    .containsExactlyInAnyOrder(mine.name(), legacy);
        } finally {
            admin("DROP DATABASE IF EXISTS " + legacy + " WITH (FORCE)");
        }
    }

    private static void admin(String sql) throws SQLException {
        try (var c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             var st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Creates two test databases, prints their names, then fails or waits to be killed. */
    public static void main(String[] args) throws Exception {
        System.out.println(TestDatabases.create().name());
        System.out.println(TestDatabases.create().name());
        System.out.flush();
        if (args[0].equals("fail")) {
            throw new AssertionError("a test failed");
        }
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }

    private static void assumeMachineServer() {
        assumeTrue(TestDatabases.create().jdbcUrl().startsWith("jdbc:postgresql://127.0.0.1:5432/"),
                "only the machine's PostgreSQL keeps databases after the JVM");
    }

    private static Process child(String mode) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                TestDatabasesTest.class.getName(), mode).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static List<String> names(Process child, int count) throws Exception {
        var out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String line = out.readLine();
            assertThat(line).as("the child's database name").startsWith(TestDatabases.PREFIX);
            names.add(line);
        }
        return names;
    }

    private static List<String> existing(List<String> names) throws SQLException {
        List<String> found = new ArrayList<>();
        try (var c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             var st = c.prepareStatement("SELECT datname FROM pg_database WHERE datname = ANY (?)")) {
            st.setArray(1, c.createArrayOf("text", names.toArray()));
            try (var rs = st.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            }
        }
        return found;
    }
}
