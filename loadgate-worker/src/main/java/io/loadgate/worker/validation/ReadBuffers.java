package io.loadgate.worker.validation;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * Heap buffers for one file's column chunks, each array released handed out again. {@link ColumnarMetrics} reads a
 * row group one column at a time and releases a column's buffers before it reads the next, so a file is read into
 * the buffers of its largest column chunk rather than new ones per column: those were three quarters of what a
 * worker allocated while it measured a load's last files once their pages were reused (370 of 492 MB in the last 3
 * s of a 25,000,000-row load, JFR). A reader given this must keep nothing of a chunk's bytes once it has released
 * them (closed its row group).
 */
final class ReadBuffers implements ByteBufferAllocator {
    private final ArrayDeque<byte[]> released = new ArrayDeque<>();

    @Override
    public ByteBuffer allocate(int size) {
        for (Iterator<byte[]> arrays = released.iterator(); arrays.hasNext(); ) {
            byte[] array = arrays.next();
            if (array.length >= size) {
                arrays.remove();
                return ByteBuffer.wrap(array, 0, size).slice();
            }
        }
        return ByteBuffer.allocate(size);
    }

    /** Fails on a buffer released twice: it would be handed out to two readers at once. */
    @Override
    public void release(ByteBuffer buffer) {
        byte[] array = buffer.array();
        for (byte[] free : released) {
            if (free == array) {
                throw new IllegalStateException("a read buffer of " + array.length + " bytes released twice");
            }
        }
        released.push(array);
    }

    @Override
    public boolean isDirect() {
        return false;
    }
}
