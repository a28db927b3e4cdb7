package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import io.loadgate.server.testing.TestLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate worker}'s metrics options fail before the worker starts, with one line. */
class WorkerCommandTest {
    @Test
    void aBadMetricsPortIsAUsageError() {
        for (String bad : List.of("-1", "65536", "99999")) {
            var result = OperatorCommandsTest.run("worker", "--ledger", "http://127.0.0.1:1", "--metrics-port", bad);
            assertThat(result.exit()).as(bad + ": " + result).isEqualTo(2);
            assertThat(result.errLines()).as(bad + ": " + result).hasSize(1);
            assertThat(result.err()).as(bad).contains("--metrics-port").contains(bad);
        }
    }

    @Test
    void aBadLedgerRetryWindowIsAUsageError() {
        var worker = OperatorCommandsTest.run("worker", "--ledger", "http://127.0.0.1:1", "--ledger-retry-window", "soon");
        assertThat(worker.exit()).as(worker.toString()).isEqualTo(2);
        assertThat(worker.errLines()).as(worker.toString()).singleElement().asString()
                .contains("--ledger-retry-window", "soon");
        for (String command : List.of("worker", "run", "replay")) {
            assertThat(OperatorCommandsTest.run(command, "--help").out()).as(command)
                    .contains("--ledger-retry-window", "LOADGATE_LEDGER_RETRY_WINDOW");
        }
    }

    @Test
    void aMetricsPortInUseStopsTheWorkerWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            String port = Integer.toString(taken.getLocalPort());
            var result = OperatorCommandsTest.run("worker", "--ledger", "http://127.0.0.1:1", "--metrics-port", port);
            assertThat(result.exit()).as(result.toString()).isNotZero();
            assertThat(result.errLines()).as(result.toString()).hasSize(1);
            assertThat(result.err()).contains("--metrics-port").contains("127.0.0.1:" + port);
            assertThat(result.out()).as("nothing started").doesNotContain("leasing from");
        }
    }

    @Test
    void aTokenTheLedgerRefusesEndsTheWorkerWithOneLine(@TempDir Path dir) throws Exception {
        try (TestLedger ledger = new TestLedger()) {
            Path tokens = Files.writeString(dir.resolve("tokens"), "worker=not-a-token-the-ledger-knows\n");
            var result = OperatorCommandsTest.run("worker", "--ledger", ledger.baseUrl(), "--token-file",
                    tokens.toString(), "--threads", "2", "--warehouse", dir.resolve("warehouse").toString());
            assertThat(result.exit()).as(result.toString()).isEqualTo(1);
            assertThat(result.errLines()).as(result.toString()).hasSize(1);
            assertThat(result.err()).contains("refused this worker's token", "401").doesNotContain("not-a-token");
        }
    }
}
