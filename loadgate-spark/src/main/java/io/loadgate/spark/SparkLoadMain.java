package io.loadgate.spark;

import io.loadgate.api.RunStatus;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.publish.CatalogConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The spark-submit entry point:
 * <pre>
 * spark-submit --class io.loadgate.spark.SparkLoadMain --conf spark.speculation=true LOADGATE_SPARK_JAR \
 *     JOB.yaml --business-key K --ledger URL --token-file FILE [--warehouse DIR]
 * </pre>
 * Exit 0 when the run ends SUCCESS, 1 when it ends otherwise, 2 on a usage mistake (one line, before any work).
 * The job publishes through its own {@code target.catalog} (or to its warehouse database); {@code --warehouse} is
 * the default warehouse directory of a catalog that names none. There is no default catalog here.
 */
public final class SparkLoadMain {
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private SparkLoadMain() {
    }

    /** The command line, parsed. */
    record Arguments(Path job, String businessKey, String ledgerUrl, Path tokenFile, Path warehouse) {
        static final String USAGE = "usage: SparkLoadMain JOB.yaml --business-key K --ledger URL --token-file FILE"
                + " [--warehouse DIR]";

        static Arguments parse(String... args) {
            Path job = null;
            String key = null;
            String ledger = null;
            Path tokens = null;
            Path warehouse = Path.of("warehouse");
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--business-key" -> key = value(args, ++i, arg);
                    case "--ledger" -> ledger = value(args, ++i, arg);
                    case "--token-file" -> tokens = Path.of(value(args, ++i, arg));
                    case "--warehouse" -> warehouse = Path.of(value(args, ++i, arg));
                    default -> {
                        if (arg.startsWith("--") || job != null) {
                            throw new IllegalArgumentException("unknown argument " + arg + "; " + USAGE);
                        }
                        job = Path.of(arg);
                    }
                }
            }
            if (job == null || key == null || ledger == null || tokens == null) {
                throw new IllegalArgumentException(USAGE);
            }
            return new Arguments(job, key, ledger, tokens, warehouse);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value; " + USAGE);
            }
            return args[i];
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Arguments arguments;
        JobSpec job;
        String yaml;
        LedgerToken token;
        try {
            arguments = Arguments.parse(args);
            yaml = Files.readString(arguments.job());
            job = JobSpecLoader.parse(arguments.job(), yaml);
            token = LedgerToken.fromFile(arguments.tokenFile(), "worker");
        } catch (IllegalArgumentException | JobSpecException | UncheckedIOException e) {
            System.err.println("loadgate-spark: " + e.getMessage());
            System.exit(EXIT_USAGE);
            return;
        } catch (IOException e) {
            System.err.println("loadgate-spark: cannot read the job file: " + e.getMessage());
            System.exit(EXIT_USAGE);
            return;
        }
        LedgerClient ledger = HttpLedgerClient.create(LedgerClientConfig.builder(arguments.ledgerUrl(), token).build());
        SparkSession session = SparkSession.builder().appName("loadgate " + job.jobKey()).getOrCreate();
        int exit;
        try (TargetCatalogs catalogs = new TargetCatalogs(Optional.<CatalogConfig>empty(), arguments.warehouse());
             SparkLoad load = new SparkLoad(JavaSparkContext.fromSparkContext(session.sparkContext()), ledger,
                     ExecutorSettings.of(arguments.ledgerUrl(), token.value()), catalogs, System.getenv())) {
            SparkLoad.Result result = load.run(job, yaml, arguments.businessKey());
            System.out.println("run " + result.run().runId() + " " + result.run().status()
                    + (result.run().errorCode() == null ? "" : " " + result.run().errorCode() + ": "
                    + result.run().errorMessage()));
            exit = result.run().status() == RunStatus.SUCCESS ? 0 : EXIT_FAILED;
        } catch (JobSpecException e) {
            System.err.println("loadgate-spark: " + e.getMessage());
            exit = EXIT_USAGE;
        } finally {
            session.stop();
        }
        System.exit(exit);
    }
}
