package io.loadgate.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SparkLoadMainTest {
    @Test
    void theDocumentedLineParses() {
        var arguments = SparkLoadMain.Arguments.parse("job.yaml", "--business-key", "2026-11-28", "--ledger",
                "http://ledger:8080", "--token-file", "tokens");

        assertThat(arguments).isEqualTo(new SparkLoadMain.Arguments(Path.of("job.yaml"), "2026-11-28",
                "http://ledger:8080", Path.of("tokens"), Path.of("warehouse")));
    }

    @Test
    void aMissingOrUnknownArgumentIsOneLineWithTheUsage() {
        assertThatThrownBy(() -> SparkLoadMain.Arguments.parse("job.yaml", "--business-key", "K"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(SparkLoadMain.Arguments.USAGE);
        assertThatThrownBy(() -> SparkLoadMain.Arguments.parse("job.yaml", "--catalog", "x"))
                .hasMessageStartingWith("unknown argument --catalog; usage:");
        assertThatThrownBy(() -> SparkLoadMain.Arguments.parse("job.yaml", "--ledger"))
                .hasMessageStartingWith("--ledger needs a value; usage:");
    }
}
