package io.loadgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.DatabaseConfig;
import io.loadgate.server.config.LoadgateConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two homes on one machine (two {@code loadgate demo}s): a home whose first start finds the default embedded port
 * taken is given a free port of its own in the loadgate.yaml it writes, so both embedded ledgers run at once; the
 * port then stays that home's.
 */
class HomePortTest {
    @TempDir
    Path first;
    @TempDir
    Path second;

    private static LoadgateConfig config(Path home) {
        Path file = new LoadgateHome(home).ensureInitialised();
        return ConfigLoader.load(Optional.of(file), Map.of("LOADGATE_HOME", home.toString()));
    }

    @Test
    void aSecondHomeGetsAPortOfItsOwnAndBothLedgersRunAtOnce() throws Exception {
        LoadgateConfig firstConfig = config(first);
        try (LoadgateServer.LedgerDatabase one = LoadgateServer.LedgerDatabase.open(firstConfig)) {
            int taken = one.embedded().port();
            // The first home has 15432 unless something else held it when it was made: either way its port is taken.
            assertThat(taken).isEqualTo(firstConfig.database().embeddedPort());

            LoadgateConfig secondConfig = config(second);
            int own = secondConfig.database().embeddedPort();
            assertThat(own).as("the second home's port").isNotIn(taken, 0);
            assertThat(Files.readString(new LoadgateHome(second).configFile()))
                    .contains("embedded_port: " + own);
            try (LoadgateServer.LedgerDatabase two = LoadgateServer.LedgerDatabase.open(secondConfig);
                 var c = two.dataSource().getConnection(); var s = c.createStatement()) {
                assertThat(two.embedded().port()).isEqualTo(own);
                var rs = s.executeQuery("SELECT 1");
                assertThat(rs.next()).isTrue();
            }
            String written = Files.readString(new LoadgateHome(second).configFile());
            assertThat(config(second).database().embeddedPort()).as("the home keeps its port").isEqualTo(own);
            assertThat(Files.readString(new LoadgateHome(second).configFile())).isEqualTo(written);
        }
    }

    @Test
    void aHomeMadeWhileTheDefaultPortIsFreeKeepsTheDefault() throws Exception {
        LoadgateConfig config = config(first);
        // Unless another program holds 15432 now, the first start writes no port and the default applies.
        if (config.database().embeddedPort() == DatabaseConfig.DEFAULT_EMBEDDED_PORT) {
            assertThat(Files.readString(new LoadgateHome(first).configFile())).doesNotContain("embedded_port");
        }
    }
}
