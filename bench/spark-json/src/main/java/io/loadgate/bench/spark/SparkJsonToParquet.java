package io.loadgate.bench.spark;

import java.lang.management.ManagementFactory;
import org.apache.spark.sql.SparkSession;

/**
 * What a user would otherwise run over the hour's files: {@code spark.read().schema(S).json(dirs).write().parquet(out)}
 * on {@code local[N]}, started by the file benchmark ({@code FileBench}) in this JVM of its own. A warm-up pass over
 * a small tree first (JIT, Spark's code generation), then the timed pass; the times go to stdout as
 * {@code NAME millis} lines for the parent to read (the job's wall and CPU time), and the rows written are counted back from the Parquet footers.
 *
 * <p>Args: master, schema (DDL), warm-up input glob, warm-up output, input glob, output.
 */
public final class SparkJsonToParquet {
    private SparkJsonToParquet() {
    }

    /** This JVM's CPU time, all threads (GC and JIT included): what the job cost on a machine others share. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) {
        if (args.length != 6) {
            System.err.println("usage: SparkJsonToParquet MASTER SCHEMA WARMUP_INPUT WARMUP_OUTPUT INPUT OUTPUT");
            System.exit(2);
        }
        long start = System.nanoTime();
        SparkSession spark = SparkSession.builder().master(args[0]).appName("bench-json-to-parquet")
                .config("spark.ui.enabled", "false")
                // The files' timestamps have no zone; read and write them as the Loadgate side does, in UTC.
                .config("spark.sql.session.timeZone", "UTC")
                .getOrCreate();
        try {
            System.out.println("SESSION_MS " + (System.nanoTime() - start) / 1_000_000);
            long warm = System.nanoTime();
            spark.read().schema(args[1]).json(args[2]).write().parquet(args[3]);
            System.out.println("WARMUP_MS " + (System.nanoTime() - warm) / 1_000_000);
            long job = System.nanoTime();
            long cpu = cpuNanos();
            spark.read().schema(args[1]).json(args[4]).write().parquet(args[5]);
            System.out.println("JOB_MS " + (System.nanoTime() - job) / 1_000_000);
            System.out.println("JOB_CPU_MS " + (cpuNanos() - cpu) / 1_000_000);
            System.out.println("ROWS " + spark.read().parquet(args[5]).count());
        } finally {
            spark.stop();
        }
    }
}
