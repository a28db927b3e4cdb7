package io.loadgate.bench;

import java.io.OutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

/**
 * The ceiling: how fast this PostgreSQL serves the load's rows as {@code COPY (SELECT ...) TO STDOUT} text, one
 * stream, into a sink that only counts bytes. The server does the formatting; the client does almost nothing.
 */
final class CopyBaseline {
    record Measurement(long rows, long bytes, long nanos) {
        double rowsPerSecond() {
            return rows / (nanos / 1e9);
        }
    }

    private CopyBaseline() {
    }

    static Measurement measure(String databaseUrl, String user) throws SQLException, java.io.IOException {
        try (Connection c = DriverManager.getConnection(databaseUrl, user, "")) {
            CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            CountingSink sink = new CountingSink();
            long start = System.nanoTime();
            long rows = copy.copyOut("COPY (" + BenchTable.select() + ") TO STDOUT", sink);
            return new Measurement(rows, sink.bytes, System.nanoTime() - start);
        }
    }

    private static final class CountingSink extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
