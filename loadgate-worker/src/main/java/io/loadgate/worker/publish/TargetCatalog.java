package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import io.loadgate.worker.job.SchemaPolicy;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg catalog that holds the target tables, and the one place that creates them. Thread-safe as far as
 * the underlying catalog is (the JDBC, Hadoop and REST catalogs are); open one per process and share it.
 */
public final class TargetCatalog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TargetCatalog.class);

    private final Catalog catalog;

    /** Wraps an already initialised catalog; {@link #close()} closes it if it is {@link Closeable}. */
    public TargetCatalog(Catalog catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    public static TargetCatalog open(CatalogConfig config) {
        requireNonNull(config, "config is null");
        Map<String, String> properties = config.catalogProperties();
        Configuration hadoopConf = new Configuration();
        log.info("opening Iceberg catalog {}", config);
        try {
            return new TargetCatalog(CatalogUtil.buildIcebergCatalog(config.name(), properties, hadoopConf));
        } catch (RuntimeException firstFailure) {
            // A JDBC catalog creates its own tables on first start with check-then-create steps (CREATE TABLE,
            // then ALTER TABLE to the V1 layout). Two workers starting on a fresh lakehouse database race on
            // them and the loser fails; by then the winner has created everything, so one more start sees
            // the finished tables. A second failure is real and is reported.
            if (config.type() != CatalogConfig.Type.JDBC) {
                throw firstFailure;
            }
            log.info("first start of the JDBC catalog failed ({}); starting it once more in case another worker "
                    + "was creating the catalog tables at the same time", firstFailure.toString());
            try {
                return new TargetCatalog(CatalogUtil.buildIcebergCatalog(config.name(), properties, hadoopConf));
            } catch (RuntimeException secondFailure) {
                secondFailure.addSuppressed(firstFailure);
                throw secondFailure;
            }
        }
    }

    public Catalog catalog() {
        return catalog;
    }

    /** Loads the table fresh from the catalog; throws {@link NoSuchTableException} when it does not exist. */
    public Table loadTable(TableIdentifier identifier) {
        return catalog.loadTable(requireNonNull(identifier, "identifier is null"));
    }

    /**
     * Returns the target table, creating it (and its namespace) first when absent. Safe when several workers
     * do this at once: every caller ends up with the one table. Throws {@link TargetMismatchException} when the
     * table exists with another schema or partitioning.
     */
    public Table createIfAbsent(TargetTable target) {
        requireNonNull(target, "target is null");
        TableIdentifier identifier = target.identifier();
        if (!catalog.tableExists(identifier)) {
            createNamespaceIfAbsent(identifier.namespace());
            try {
                // Format 2 pinned, not left to the library default: the engines that read the lake must
                // support the format, and a library upgrade must not silently change it for new tables.
                catalog.buildTable(identifier, target.schema())
                        .withPartitionSpec(target.partitionSpec())
                        .withProperty(TableProperties.FORMAT_VERSION, "2")
                        .create();
                log.info("created target table {} partitioned by {}", identifier, target.businessKeyColumn());
            } catch (AlreadyExistsException e) {
                log.debug("target table {} was created by another worker at the same time", identifier);
            }
        }
        // Loaded rather than taken from create(), so the creator and the workers that lost the race get the
        // table the same way, and the table is checked against the job the same way.
        Table table = catalog.loadTable(identifier);
        target.checkMatches(table.schema(), table.spec());
        return table;
    }

    /**
     * Checks, before a run is created, that the target can take it: the catalog answers (its connection and
     * credentials work) and the table, if it exists, fits the staged columns. A table that lacks new source columns
     * is refused, unless {@code policy} adds them, here, in one schema update. An absent table is left to the first
     * publish, which creates it.
     *
     * @return the names of the columns added; empty when none were
     * @throws TargetMismatchException when the table does not fit, naming the columns
     */
    public List<String> check(TargetTable target, SchemaPolicy policy) {
        requireNonNull(target, "target is null");
        requireNonNull(policy, "policy is null");
        TableIdentifier identifier = target.identifier();
        if (!catalog.tableExists(identifier)) {
            return List.of();
        }
        Table table = catalog.loadTable(identifier);
        List<Types.NestedField> missing = target.columnsMissingFrom(table.schema());
        if (!missing.isEmpty()) {
            if (policy == SchemaPolicy.EXACT) {
                throw target.newColumns(missing);
            }
            addColumns(table, target, missing);
            table = catalog.loadTable(identifier);
        }
        target.checkMatches(table.schema(), table.spec());
        return missing.stream().map(Types.NestedField::name).toList();
    }

    private void addColumns(Table table, TargetTable target, List<Types.NestedField> missing) {
        UpdateSchema update = table.updateSchema();
        missing.forEach(column -> update.addColumn(column.name(), column.type()));
        try {
            update.commit();
            log.info("added columns {} to {}", missing.stream().map(Types.NestedField::name).toList(),
                    target.identifier());
        } catch (RuntimeException e) {
            // Two loads of the job checked at once: the other one's commit added them, and this one's, rebased on
            // it, found them there. Fine if the table now has them; anything else is a real failure.
            if (!target.columnsMissingFrom(catalog.loadTable(target.identifier()).schema()).isEmpty()) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        if (catalog instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close catalog " + catalog.name(), e);
            }
        }
    }

    private void createNamespaceIfAbsent(Namespace namespace) {
        if (namespace.isEmpty() || !(catalog instanceof SupportsNamespaces namespaces)
                || namespaces.namespaceExists(namespace)) {
            return;
        }
        try {
            namespaces.createNamespace(namespace);
        } catch (RuntimeException e) {
            // AlreadyExistsException when another worker won the race cleanly; some catalogs (JDBC) instead
            // surface the lost race as a constraint violation. Either way the namespace now exists, which is
            // all we need; if it does not, the failure was real.
            if (!namespaces.namespaceExists(namespace)) {
                throw e;
            }
        }
    }
}
