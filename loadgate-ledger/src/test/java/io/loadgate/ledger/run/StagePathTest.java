package io.loadgate.ledger.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StagePathTest {
    @Test
    void normalisesSlashesAndDots() {
        assertThat(StagePath.parse("/data//stage/./x/").toString()).isEqualTo("/data/stage/x");
        assertThat(StagePath.parse("HDFS://NN:8020/data/x").toString()).isEqualTo("hdfs://nn:8020/data/x");
        assertThat(StagePath.parse("file:///tmp/a").toString()).isEqualTo("file:///tmp/a");
        assertThat(StagePath.parse("file:/tmp/a")).isEqualTo(StagePath.parse("file:///tmp/a"));
    }

    @Test
    void refusesTraversalRelativeAndEncodedPaths() {
        for (String bad : new String[] {"../x", "/a/../b", "/a/%2e%2e/b", "/a/%2E%2e/b", "/a%2fb",
                "/a/%252e%252e/b", "/a/%c0%ae%c0%ae/b", "/a/%41", "hdfs://nn/a/%252e%252e/b", "a/b", "",
                "//host/a", "/a\\b", "hdfs://nn/a?x=1", "mailto:x@y"}) {
            assertThatThrownBy(() -> StagePath.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void containmentComparesWholeSegmentsSchemeAndHost() {
        StagePath run = StagePath.parse("/stage/JOB/run_id=abc");
        assertThat(run.strictlyContains(StagePath.parse("/stage/JOB/run_id=abc/part-0.parquet"))).isTrue();
        assertThat(run.strictlyContains(StagePath.parse("/stage/JOB/run_id=abcd/part-0.parquet"))).isFalse();
        assertThat(run.strictlyContains(StagePath.parse("/stage/JOB/run_id=abc"))).isFalse();
        assertThat(run.contains(StagePath.parse("/stage/JOB/run_id=abc"))).isTrue();
        assertThat(run.contains(StagePath.parse("file:///stage/JOB/run_id=abc/x"))).isFalse();
        StagePath hdfs = StagePath.parse("hdfs://nn:8020/stage");
        assertThat(hdfs.contains(StagePath.parse("hdfs://nn:8020/stage/x"))).isTrue();
        assertThat(hdfs.contains(StagePath.parse("hdfs://other:8020/stage/x"))).isFalse();
    }
}
