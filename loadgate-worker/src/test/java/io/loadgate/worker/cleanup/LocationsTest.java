package io.loadgate.worker.cleanup;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class LocationsTest {
    private final Locations local = new Locations(URI.create("file:///"));
    private final Locations cluster = new Locations(URI.create("hdfs://NameNode:8020"));

    @Test
    void everySpellingOfALocalFileIsOneKey() {
        String key = local.key("file:///stage/JOB/run_id=1/part-0000.parquet");

        assertThat(key).isEqualTo("file:///stage/JOB/run_id=1/part-0000.parquet");
        assertThat(local.key("file:/stage/JOB/run_id=1/part-0000.parquet")).as("Hadoop's listing").isEqualTo(key);
        assertThat(local.key("/stage/JOB/run_id=1/part-0000.parquet")).as("a bare path").isEqualTo(key);
        assertThat(local.key("FILE:///stage//JOB/./run_id=1/part-0000.parquet")).as("case, // and .").isEqualTo(key);
        assertThat(local.key("file:///stage/job/run_id=1/part-0000.parquet")).as("paths are case sensitive")
                .isNotEqualTo(key);
    }

    @Test
    void aBareOrAuthorityLessPathIsOnTheDefaultFileSystem() {
        String key = cluster.key("hdfs://namenode:8020/stage/a.parquet");

        assertThat(cluster.key("/stage/a.parquet")).isEqualTo(key);
        assertThat(cluster.key("hdfs:///stage/a.parquet")).isEqualTo(key);
        assertThat(cluster.key("hdfs://other:8020/stage/a.parquet")).as("another name node").isNotEqualTo(key);
        assertThat(cluster.key("file:///stage/a.parquet")).as("another file system").isNotEqualTo(key);
    }

    @Test
    void belowComparesWholeSegments() {
        assertThat(local.isBelow("file:/stage/JOB/run_id=1/a.parquet", "file:///stage/JOB/run_id=1")).isTrue();
        assertThat(local.isBelow("file:/stage/JOB/run_id=1/sub/a.parquet", "/stage/JOB/run_id=1/")).isTrue();
        assertThat(local.isBelow("file:/stage/JOB/run_id=12/a.parquet", "file:///stage/JOB/run_id=1")).isFalse();
        assertThat(local.isBelow("file:/stage/JOB/run_id=1", "file:///stage/JOB/run_id=1")).as("itself").isFalse();
        assertThat(local.isBelow("file:///stage/JOB/run_id=1/../other/a.parquet", "file:///stage/JOB/run_id=1"))
                .as("resolved as Hadoop resolves it").isFalse();
    }
}
