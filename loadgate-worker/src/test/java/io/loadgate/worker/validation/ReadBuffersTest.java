package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ReadBuffersTest {
    @Test
    void anArrayReleasedIsHandedOutAgainForAnyRequestItHolds() {
        ReadBuffers buffers = new ReadBuffers();
        ByteBuffer first = buffers.allocate(1_000);
        ByteBuffer second = buffers.allocate(1_000);
        assertThat(second.array()).as("not released: not handed out twice").isNotSameAs(first.array());

        buffers.release(first);
        ByteBuffer smaller = buffers.allocate(600);
        assertThat(smaller.array()).isSameAs(first.array());
        // A reader fills a buffer to its limit: exactly the size asked for, from its start.
        assertThat(smaller.position()).isZero();
        assertThat(smaller.remaining()).isEqualTo(600);
        assertThat(smaller.capacity()).isEqualTo(600);

        buffers.release(smaller);
        assertThat(buffers.allocate(1_001).array()).as("too small an array is left").isNotSameAs(first.array())
                .hasSize(1_001);
        assertThat(buffers.allocate(1_000).array()).isSameAs(first.array());
        assertThat(buffers.isDirect()).isFalse();
    }

    @Test
    void aBufferReleasedTwiceFails() {
        ReadBuffers buffers = new ReadBuffers();
        ByteBuffer buffer = buffers.allocate(100);
        buffers.release(buffer);
        assertThatThrownBy(() -> buffers.release(buffer)).isInstanceOf(IllegalStateException.class)
                .hasMessage("a read buffer of 100 bytes released twice");
        assertThat(buffers.allocate(100).array()).isSameAs(buffer.array());
        assertThat(buffers.allocate(100).array()).as("handed out once").isNotSameAs(buffer.array());
    }
}
