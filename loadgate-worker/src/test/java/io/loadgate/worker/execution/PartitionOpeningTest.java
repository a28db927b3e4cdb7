package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PartitionOpeningTest {
    @Test
    void rowsHandedOutAreTheCallersToClose() {
        Rows opened = new Rows();
        PartitionOpening opening = PartitionOpening.start(() -> opened);

        assertThat(opening.rows()).isSameAs(opened);
        opening.discard();

        assertThat(opened.closes.get()).isZero();
    }

    @Test
    void rowsOfAClaimNotWonAreClosedOnceOpenEvenWhenTheyOpenAfterward() throws Exception {
        CountDownLatch claimDecided = new CountDownLatch(1);
        Rows opened = new Rows();
        PartitionOpening opening = PartitionOpening.start(() -> {
            claimDecided.await(10, TimeUnit.SECONDS);
            return opened;
        });

        opening.discard();
        claimDecided.countDown();

        assertThat(opened.closed.await(10, TimeUnit.SECONDS)).as("closed by the opening thread").isTrue();
        assertThat(opened.closes.get()).isEqualTo(1);
    }

    @Test
    void whatOpeningThrewComesFromRowsAsItWasThrown() {
        SnapshotExpiredException gone = new SnapshotExpiredException("snapshot 00000003-1 is gone", null);
        PartitionOpening opening = PartitionOpening.start(() -> {
            throw gone;
        });

        assertThatThrownBy(opening::rows).isSameAs(gone);
        opening.discard();
    }

    @Test
    void discardingWhileTheRowsOpenClosesThemExactlyOnce() throws Exception {
        // The step's discard races the opening thread's end: whichever comes second closes, never both, never neither.
        List<Rows> all = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            CountDownLatch go = new CountDownLatch(1);
            Rows opened = new Rows();
            all.add(opened);
            PartitionOpening opening = PartitionOpening.start(() -> {
                go.await(10, TimeUnit.SECONDS);
                return opened;
            });
            go.countDown();
            opening.discard();

            assertThat(opened.closed.await(10, TimeUnit.SECONDS)).as("attempt %d closed", i).isTrue();
        }
        // Checked after every attempt has ended, so that a second close, had there been one, has happened.
        assertThat(all).allSatisfy(rows -> assertThat(rows.closes.get()).isEqualTo(1));
    }

    /** Rows that only count their closes. */
    private static final class Rows implements PartitionRows {
        final AtomicInteger closes = new AtomicInteger();
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public List<SourceColumn> columns() {
            return List.of();
        }

        @Override
        public boolean next() {
            return false;
        }

        @Override
        public Object value(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            closed.countDown();
        }
    }
}
