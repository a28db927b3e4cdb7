package io.loadgate.cli;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.publish.CatalogConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The default Iceberg catalog of a command that reads or changes target tables: {@code --catalog}, {@code --warehouse}. */
final class CatalogOptions {
    @Option(names = "--catalog", paramLabel = "KEY=VALUE", description = "the default Iceberg catalog for jobs without"
            + " target.catalog, as the workers have it (see 'loadgate worker --help')")
    Map<String, String> catalog = new HashMap<>();

    @Option(names = "--warehouse", paramLabel = "DIR",
            description = "the default catalog's warehouse (default: $LOADGATE_HOME/warehouse)")
    Path warehouse;

    boolean given() {
        return !catalog.isEmpty() || warehouse != null;
    }

    /**
     * For a command that runs its workers in this process unless given {@code --ledger}: those workers publish to the
     * lakehouse on {@code $LOADGATE_HOME}, so a default catalog given without {@code --ledger} would go unused.
     */
    void requireLedger(LedgerOptions ledger) {
        if (given() && !ledger.ledgerGiven()) {
            throw new CliException("--catalog and --warehouse name the workers' default catalog with --ledger; without"
                    + " it the workers in this process publish to the lakehouse on $LOADGATE_HOME",
                    LedgerOptions.EXIT_USAGE);
        }
    }

    /** The job's own catalogs, and the one given here for jobs without; the caller closes them. */
    TargetCatalogs open() {
        Path dir = warehouseDir();
        return new TargetCatalogs(given(dir), dir);
    }

    /**
     * As {@link #open()}, but without {@code --catalog} the default is the lakehouse of the ledger on
     * {@code $LOADGATE_HOME}, as a worker beside it has (see {@link HomeLakehouse}).
     */
    TargetCatalogs openOrHome() {
        Path dir = warehouseDir();
        Optional<CatalogConfig> config = given(dir);
        return new TargetCatalogs(config.isPresent() ? config : HomeLakehouse.find(System.getenv(), dir), dir);
    }

    private Path warehouseDir() {
        return warehouse != null ? warehouse
                : io.loadgate.server.config.ConfigLoader.home(System.getenv()).resolve("warehouse");
    }

    private Optional<CatalogConfig> given(Path dir) {
        try {
            return catalog.isEmpty() ? Optional.empty() : Optional.of(CatalogConfig.fromProperties(catalog, dir));
        } catch (IllegalArgumentException e) {
            throw new CliException("--catalog: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
    }
}
