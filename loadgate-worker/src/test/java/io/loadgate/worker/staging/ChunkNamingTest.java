package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class ChunkNamingTest {
    private static final UUID TOKEN = UUID.fromString("5f2c9e1a-0000-4000-8000-000000000001");

    @Test
    void aWorkersChunksCarryPartitionIndexAttemptAndToken() {
        ChunkNaming naming = new ChunkNaming("0003", 1, TOKEN);

        assertThat(naming.fileName(2)).isEqualTo("part-0003-chunk-000002-a1-5f2c9e1a.parquet");
        assertThat(naming.rejectsFileName()).isEqualTo("part-0003-rejects-a1-5f2c9e1a.parquet");
    }

    @Test
    void anotherEnginesAttemptIsNamedAfterTheToken() {
        ChunkNaming naming = new ChunkNaming("0003", 2, TOKEN, "s0t17a1");

        assertThat(naming.fileName(0)).isEqualTo("part-0003-chunk-000000-a2-5f2c9e1a-s0t17a1.parquet");
        assertThat(naming.rejectsFileName()).isEqualTo("part-0003-rejects-a2-5f2c9e1a-s0t17a1.parquet");
    }

    @Test
    void aWriterThatCouldBreakTheNameIsRefused() {
        assertThatThrownBy(() -> new ChunkNaming("0003", 1, TOKEN, "a/b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("writer");
        assertThatThrownBy(() -> new ChunkNaming("0003", 1, TOKEN, "S0")).isInstanceOf(IllegalArgumentException.class);
    }
}
