package io.loadgate.worker.transform;

import static java.util.Objects.requireNonNull;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.BiConsumer;
import org.apache.iceberg.data.Record;

/** Rows after a {@link TransformChain}: the kept ones, rewritten; each rejected one goes to a sink instead. */
public final class TransformedRows {
    private TransformedRows() {
    }

    /**
     * @param rejected receives each rejected row with its original values (as read, before any rewrite, except that
     *                 columns the job hashes are hashed: see {@link TransformChain#pseudonymise}) and the reason, in
     *                 source order, on the calling thread
     */
    public static Iterator<Record> of(Iterator<Record> rows, TransformChain chain, BiConsumer<Record, String> rejected) {
        requireNonNull(rows, "rows is null");
        requireNonNull(chain, "chain is null");
        requireNonNull(rejected, "rejected is null");
        return new Iterator<>() {
            private Record next;

            @Override
            public boolean hasNext() {
                while (next == null && rows.hasNext()) {
                    Record row = rows.next();
                    // A shallow copy is enough: rewrites replace values, they never mutate one.
                    Record original = chain.rewrites() ? row.copy() : row;
                    String reason = chain.apply(row);
                    if (reason == null) {
                        next = row;
                    } else {
                        chain.pseudonymise(original);
                        rejected.accept(original, reason);
                    }
                }
                return next != null;
            }

            @Override
            public Record next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Record row = next;
                next = null;
                return row;
            }
        };
    }
}
