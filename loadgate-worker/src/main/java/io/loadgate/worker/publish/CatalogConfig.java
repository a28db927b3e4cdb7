package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Where the target Iceberg tables live: a JDBC catalog by default (a {@code lakehouse} database beside the
 * ledger), a Hadoop catalog on a warehouse directory, or a REST catalog.
 *
 * <p>{@code properties} are extra Iceberg catalog properties passed through as they are (for example
 * {@code jdbc.user}, {@code jdbc.password}, {@code credential}, {@code io-impl}); they may not restate
 * {@code type}, {@code uri} or {@code warehouse}, which have their own components.
 *
 * @param type which catalog implementation
 * @param name the catalog name; a JDBC catalog keys its rows by it, so every worker must use the same one
 * @param uri the JDBC URL for {@link Type#JDBC}, the service URL for {@link Type#REST}, null for
 *     {@link Type#HADOOP}
 * @param warehouse root location of table data and metadata; required for JDBC and Hadoop, optional for REST
 *     (the server may choose)
 */
public record CatalogConfig(Type type, String name, String uri, String warehouse, Map<String, String> properties) {
    public static final String DEFAULT_NAME = "loadgate";
    /** Property keys {@link #fromProperties} reads; all other keys pass through to the catalog. */
    public static final String TYPE_KEY = "type";
    public static final String NAME_KEY = "name";
    public static final String URI_KEY = "uri";
    public static final String WAREHOUSE_KEY = "warehouse";

    // The JDBC catalog creates its tables in the V0 layout and logs a warning on every start unless told V1
    // (which also supports views); every worker must agree, so Loadgate always sets it.
    static final String JDBC_SCHEMA_VERSION_KEY = "jdbc.schema-version";
    // A JDBC catalog's tables on the local disk are read and written without Hadoop's local file system, unless the
    // properties name another FileIO.
    static final String IO_IMPL_KEY = "io-impl";
    private static final Pattern SECRET_KEY = Pattern.compile("(?i).*(password|secret|credential|token).*");

    public enum Type {
        JDBC("org.apache.iceberg.jdbc.JdbcCatalog"),
        /**
         * Commits by renaming metadata files, so it is only safe for several writers on a file system whose
         * rename is atomic and fails when the target exists (HDFS); on a local disk, one process only.
         */
        HADOOP("org.apache.iceberg.hadoop.HadoopCatalog"),
        REST("org.apache.iceberg.rest.RESTCatalog"),
        /**
         * Iceberg tables in a Hive Metastore ({@code uri: thrift://...}), visible to Hive, Spark and Trino users through
         * their usual catalog; needs the {@code loadgate-hive} module on the class path. The metastore's own warehouse
         * directory must not contain {@code warehouse}: Hive 4 refuses EXTERNAL tables under its managed root.
         */
        HIVE("org.apache.iceberg.hive.HiveCatalog");

        private final String catalogImpl;

        Type(String catalogImpl) {
            this.catalogImpl = catalogImpl;
        }

        String catalogImpl() {
            return catalogImpl;
        }
    }

    public CatalogConfig {
        requireNonNull(type, "type is null");
        requireNonNull(name, "name is null");
        requireNonNull(properties, "properties is null");
        properties = Map.copyOf(properties);
        if (name.isBlank()) {
            throw new IllegalArgumentException(NAME_KEY + " is blank");
        }
        for (String ownKey : new String[] {TYPE_KEY, URI_KEY, WAREHOUSE_KEY, "catalog-impl"}) {
            if (properties.containsKey(ownKey)) {
                throw new IllegalArgumentException(ownKey + " must be given as its own setting, not as an extra property");
            }
        }
        switch (type) {
            case JDBC -> {
                requireSet(uri, URI_KEY, "a JDBC catalog needs a JDBC URL");
                if (!uri.startsWith("jdbc:")) {
                    throw new IllegalArgumentException(URI_KEY + " must be a JDBC URL (jdbc:...), got: " + uri);
                }
                requireSet(warehouse, WAREHOUSE_KEY, "a JDBC catalog needs a warehouse location");
            }
            case HADOOP -> {
                if (uri != null) {
                    throw new IllegalArgumentException(URI_KEY + " is not used by a Hadoop catalog; remove it");
                }
                requireSet(warehouse, WAREHOUSE_KEY, "a Hadoop catalog needs a warehouse location");
            }
            case REST -> requireSet(uri, URI_KEY, "a REST catalog needs the service URL");
            case HIVE -> {
                requireSet(uri, URI_KEY, "a Hive catalog needs the metastore's thrift:// URI");
                if (!uri.startsWith("thrift://")) {
                    throw new IllegalArgumentException(URI_KEY + " must be a metastore URI (thrift://...), got: " + uri);
                }
                requireSet(warehouse, WAREHOUSE_KEY, "a Hive catalog needs a warehouse location");
            }
        }
    }

    /** The default target: a JDBC catalog on {@code jdbcUrl} with its warehouse at {@code warehouse}. */
    public static CatalogConfig jdbc(String jdbcUrl, String user, String password, Path warehouse) {
        requireNonNull(user, "user is null");
        requireNonNull(password, "password is null");
        requireNonNull(warehouse, "warehouse is null");
        return new CatalogConfig(Type.JDBC, DEFAULT_NAME, jdbcUrl, warehouse.toAbsolutePath().toString(),
                Map.of("jdbc.user", user, "jdbc.password", password));
    }

    public static CatalogConfig hadoop(Path warehouse) {
        requireNonNull(warehouse, "warehouse is null");
        return new CatalogConfig(Type.HADOOP, DEFAULT_NAME, null, warehouse.toAbsolutePath().toString(), Map.of());
    }

    /**
     * Reads a configuration given as flat properties: {@code type} ({@code jdbc} when absent, {@code hadoop},
     * {@code rest}, {@code hive}), {@code name}, {@code uri}, {@code warehouse} (default {@code defaultWarehouse}, normally
     * {@code $LOADGATE_HOME/warehouse}, except for REST where the server decides); everything else passes
     * through to the Iceberg catalog.
     */
    public static CatalogConfig fromProperties(Map<String, String> settings, Path defaultWarehouse) {
        requireNonNull(settings, "settings is null");
        requireNonNull(defaultWarehouse, "defaultWarehouse is null");
        Map<String, String> extra = new HashMap<>(settings);
        Type type = parseType(extra.remove(TYPE_KEY));
        String name = extra.remove(NAME_KEY);
        String uri = extra.remove(URI_KEY);
        String warehouse = extra.remove(WAREHOUSE_KEY);
        if (warehouse == null && type != Type.REST) {
            warehouse = defaultWarehouse.toAbsolutePath().toString();
        }
        return new CatalogConfig(type, name == null ? DEFAULT_NAME : name, uri, warehouse, extra);
    }

    /** The complete property map handed to {@code CatalogUtil.buildIcebergCatalog}. */
    Map<String, String> catalogProperties() {
        Map<String, String> all = new HashMap<>(properties);
        all.put("catalog-impl", type.catalogImpl());
        if (uri != null) {
            all.put(URI_KEY, uri);
        }
        if (warehouse != null) {
            all.put(WAREHOUSE_KEY, warehouse);
        }
        if (type == Type.JDBC) {
            all.putIfAbsent(JDBC_SCHEMA_VERSION_KEY, "V1");
            if (warehouse != null && LocalFileIO.isLocal(warehouse)) {
                all.putIfAbsent(IO_IMPL_KEY, LocalFileIO.class.getName());
            }
        }
        return Map.copyOf(all);
    }

    /** Masks anything that looks like a secret, in properties and in a JDBC URL's query string. */
    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        properties.forEach((key, value) -> shown.put(key, SECRET_KEY.matcher(key).matches() ? "****" : value));
        String shownUri = uri == null ? null : uri.replaceAll("(?i)(password|secret|token)=[^&;]*", "$1=****");
        return "CatalogConfig[type=" + type + ", name=" + name + ", uri=" + shownUri + ", warehouse=" + warehouse
                + ", properties=" + shown + "]";
    }

    private static Type parseType(String value) {
        if (value == null) {
            return Type.JDBC;
        }
        try {
            return Type.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(TYPE_KEY + " must be one of jdbc, hadoop, rest, hive; got: " + value, e);
        }
    }

    private static void requireSet(String value, String key, String why) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " is not set: " + why);
        }
    }
}
