package io.loadgate.bench;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.SourceRecords;
import io.loadgate.worker.staging.StagedChunk;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;

/**
 * Where one extraction stream's time goes: the same rows read single-threaded, one layer of the worker's extract
 * path added per pass, each through the worker's own classes ({@link Source#readPartition}, {@link SourceRecords},
 * {@link ChunkWriter}). The differences between passes are the layers' costs. No ledger, no heartbeat.
 */
final class Breakdown {
    /** A pass's rows, wall time and the CPU time of the thread that ran it (the server's is not in it). */
    record Pass(String name, long rows, long nanos, long cpuNanos) {
        double rowsPerSecond() {
            return rows / (nanos / 1e9);
        }
    }

    private Breakdown() {
    }

    static List<Pass> measure(String sourceUrl, String user, Path directory) throws Exception {
        List<Pass> passes = new ArrayList<>();
        passes.add(rawJdbc(sourceUrl, user));
        Path jobFile = directory.resolve("breakdown.yaml");
        Files.createDirectories(directory);
        String yaml = BenchTable.jobYaml(sourceUrl, "BENCH_BREAKDOWN", "lake.unused", 1,
                directory.toUri().toString(), "zstd");
        Files.writeString(jobFile, yaml);
        JobSpec job = JobSpecLoader.parse(jobFile, yaml);
        Source source = Sources.forJob(job, System.getenv());
        String day = BenchTable.DAY.toString();
        try (SnapshotHolder snapshot = source.openSnapshot(day)) {
            String ref = snapshot.plan().snapshotRef();
            Partition all = snapshot.plan().partitions().get(0);
            passes.add(timed("+ values decoded as objects (readPartition: binary COPY, value(i))", () -> {
                try (PartitionRows rows = source.readPartition(ref, all, day)) {
                    int width = rows.columns().size();
                    long n = 0;
                    while (rows.next()) {
                        for (int i = 0; i < width; i++) {
                            rows.value(i);
                        }
                        n++;
                    }
                    return n;
                }
            }));
            passes.add(timed("+ Iceberg GenericRecord per row (SourceRecords)", () -> {
                try (PartitionRows rows = source.readPartition(ref, all, day)) {
                    Iterator<Record> records = SourceRecords.of(io.loadgate.worker.staging.SourceSchemas.toIceberg(
                            rows.columns()), rows);
                    long n = 0;
                    while (records.hasNext()) {
                        records.next();
                        n++;
                    }
                    return n;
                }
            }));
            for (Compression codec : List.of(Compression.UNCOMPRESSED, Compression.SNAPPY, Compression.ZSTD)) {
                passes.add(timed("+ Parquet chunks, " + codec.icebergName() + " (ChunkWriter, with SHA-256)",
                        () -> write(source, ref, all, day, directory.resolve(codec.icebergName()), codec, false)));
            }
            // The worker's path with no transforms: the same files, without a record (twice each, alternating).
            for (int round = 0; round < 2; round++) {
                passes.add(timed("zstd chunks from records, again",
                        () -> write(source, ref, all, day, directory.resolve("records"), Compression.ZSTD, false)));
                passes.add(timed("zstd chunks from primitives (no record: the worker's path)",
                        () -> write(source, ref, all, day, directory.resolve("primitives"), Compression.ZSTD, true)));
            }
        }
        return passes;
    }

    private static long write(Source source, String ref, Partition partition, String day, Path directory,
                              Compression codec, boolean primitives) throws Exception {
        Files.createDirectories(directory);
        try (PartitionRows rows = source.readPartition(ref, partition, day)) {
            Schema schema = io.loadgate.worker.staging.SourceSchemas.toIceberg(rows.columns());
            ChunkWriter writer = new ChunkWriter(new Configuration(), directory.toUri(), schema,
                    new StagingSpec(directory.toUri(), StagingSpec.DEFAULT_ROWS_PER_CHUNK, codec));
            ChunkNaming naming = new ChunkNaming(partition.partitionId(), 1, UUID.randomUUID());
            List<StagedChunk> chunks = primitives
                    ? writer.writePrimitivePartition(naming, SourceRecords.primitives(rows))
                    : writer.writePartition(naming, SourceRecords.of(schema, rows));
            return chunks.stream().mapToLong(StagedChunk::recordCount).sum();
        }
    }

    /** The floor of any JDBC reader: the driver's cursor fetch and row parsing, no value decoded. */
    private static Pass rawJdbc(String sourceUrl, String user) throws Exception {
        return timed("JDBC cursor fetch, rs.next() only", () -> {
            try (Connection c = DriverManager.getConnection(sourceUrl, user, "")) {
                c.setAutoCommit(false);
                try (PreparedStatement s = c.prepareStatement(BenchTable.select())) {
                    s.setFetchSize(10_000);
                    long n = 0;
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            n++;
                        }
                    }
                    c.commit();
                    return n;
                }
            }
        });
    }

    @FunctionalInterface
    private interface Counted {
        long run() throws Exception;
    }

    private static Pass timed(String name, Counted body) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long rows = body.run();
        Pass pass = new Pass(name, rows, System.nanoTime() - start, threads.getCurrentThreadCpuTime() - cpuStart);
        System.out.printf("  %-62s %,12.0f rows/s %6.0f ns CPU per row%n", name, pass.rowsPerSecond(),
                (double) pass.cpuNanos() / rows);
        return pass;
    }

}
