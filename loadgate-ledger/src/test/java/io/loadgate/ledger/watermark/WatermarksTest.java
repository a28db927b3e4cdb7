package io.loadgate.ledger.watermark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The directories a file partition's sourceRef names, as the worker's SnapshotFile writes it. */
class WatermarksTest {
    @Test
    void eachFilesFirstPathSegmentIsItsDirectory() {
        assertThat(Watermarks.directories("d_20261130-1400/part-0.json,120,1764511200000,3;"
                + "d_20261130-1410/part-0.json.gz,40,1764511800000,2;d_20261130-1400/part-1.json,9,1,1"))
                .containsExactly("d_20261130-1400", "d_20261130-1410", "d_20261130-1400");
    }

    @Test
    void escapesAreUndoneAndAFileAtTheRootOrAnEmptyPartitionNamesNone() {
        assertThat(Watermarks.directories("d%2Cx%3B/a,1,1,1;top.json,1,1,1")).containsExactly("d,x;");
        assertThat(Watermarks.directories("")).isEmpty();
    }
}
