package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.LocalTime;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class MetricValuesTest {
    @Test
    void aTimeFormatsAlikeFromTheSourceAndFromIcebergsMicroseconds() {
        LocalTime time = LocalTime.of(23, 59, 58, 123_456_000);
        long micros = (time.toNanoOfDay()) / 1_000;

        assertThat(MetricValues.format(time)).isEqualTo("23:59:58.123456");
        assertThat(MetricValues.format(MetricValues.asGeneric(Types.TimeType.get(), micros)))
                .isEqualTo(MetricValues.format(time));
    }

    @Test
    void bytesFormatAlikeAsAnArrayAndAsABuffer() {
        byte[] bytes = {0x00, 0x7f, (byte) 0x80, (byte) 0xff};
        ByteBuffer buffer = ByteBuffer.allocate(6).put((byte) 9).put(bytes).put((byte) 9).position(1).limit(5);

        assertThat(MetricValues.format(bytes)).isEqualTo("007f80ff");
        assertThat(MetricValues.format(buffer.slice())).isEqualTo("007f80ff");
    }
}
