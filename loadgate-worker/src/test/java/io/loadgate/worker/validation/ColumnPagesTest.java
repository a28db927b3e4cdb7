package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

/** One-bit definition levels counted from bytes laid out by hand, in both forms a version 1 page may hold. */
class ColumnPagesTest {
    private static final ColumnDescriptor COLUMN = new ColumnDescriptor(new String[] {"v"},
            Types.optional(PrimitiveTypeName.INT64).named("v"), 0, 1);

    @Test
    void rleRunsAndBitPackedGroupsCountTheirOnes() throws IOException {
        // An RLE run of 10 ones (header 10 << 1), a bit-packed group (header 1 << 1 | 1) of 8 levels 0b10110001,
        // an RLE run of 300 zeros (header 600 as a varint: 0xD8 0x04), then a group of which only 3 levels count.
        ByteBuffer bytes = ByteBuffer.wrap(new byte[] {20, 1, 3, (byte) 0b1011_0001, (byte) 0xD8, 0x04, 0, 3, (byte) 0b1111_1101});
        assertThat(ColumnPages.ones(bytes, 0, bytes.limit(), 10 + 8 + 300 + 3, COLUMN)).isEqualTo(10 + 4 + 0 + 2);
        assertThat(ColumnPages.ones(bytes, 0, bytes.limit(), 12, COLUMN)).as("the first run's levels only").isEqualTo(10 + 1);
        assertThatThrownBy(() -> ColumnPages.ones(bytes, 0, 4, 20, COLUMN)).isInstanceOf(IOException.class)
                .hasMessageContaining("past its end");
        ByteBuffer badLevel = ByteBuffer.wrap(new byte[] {4, 2});
        assertThatThrownBy(() -> ColumnPages.ones(badLevel, 0, 2, 2, COLUMN)).hasMessageContaining("definition level 2");
    }

    @Test
    void bitPackedLevelsCountFromTheMostSignificantBit() throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(new byte[] {(byte) 0xFF, (byte) 0b1100_0000});
        assertThat(ColumnPages.bitPackedOnes(bytes, 2, 10, COLUMN)).isEqualTo(10);
        assertThat(ColumnPages.bitPackedOnes(bytes, 2, 9, COLUMN)).isEqualTo(9);
        assertThat(ColumnPages.bitPackedOnes(ByteBuffer.wrap(new byte[] {0b0111_1111}), 1, 1, COLUMN)).isZero();
    }
}
