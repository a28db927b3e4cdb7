package io.loadgate.worker.job;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the rows come from. Exactly one of {@code table} and {@code query} is set; {@code columns} empty means all
 * columns of the relation. {@code filter} is a SQL predicate written by the job's author; {@code :business_key} in
 * it becomes a bind parameter (only there: a {@code query} that needs the key leaves that condition to the filter). The password itself is never in the spec, only the name of the variable holding it.
 * {@code allowEmpty} lets a business key with no source rows load: its run replaces the key's partition with nothing
 * (without it the ledger refuses an empty plan, EMPTY_SOURCE_BLOCKED, because an empty day is more often a source
 * that has not delivered yet than a day without rows).
 *
 * {@code metrics} says when the source's metrics are measured at the snapshot ({@link SourceMetricsTiming}; default
 * {@code auto}).
 *
 * <p>With {@code files} (see {@link FilesSpec}) the rows come from file drops instead, and none of the JDBC keys may
 * be set.
 *
 * <p>The component list mirrors the YAML section one to one, which is why this record is wider than the usual
 * six-argument limit: it is built by the YAML loader, not by hand.
 */
public record SourceSpec(
        String jdbcUrl,
        String user,
        String passwordEnv,
        String table,
        String query,
        List<String> columns,
        String splitColumn,
        Integer partitions,
        String filter,
        Integer fetchSize,
        Boolean allowEmpty,
        SourceMetricsTiming metrics,
        FilesSpec files) {
    public static final int DEFAULT_PARTITIONS = 4;
    public static final int DEFAULT_FETCH_SIZE = 10_000;
    public static final int MAX_PARTITIONS = 9_999;
    public static final String BUSINESS_KEY_PARAMETER = ":business_key";

    // A lookbehind keeps PostgreSQL casts such as x::business_key from being taken for the parameter.
    private static final Pattern BUSINESS_KEY = Pattern.compile("(?<!:):business_key\\b");

    public SourceSpec {
        if (files != null) {
            if (jdbcUrl != null || user != null || passwordEnv != null || table != null || query != null
                    || columns != null && !columns.isEmpty() || splitColumn != null || partitions != null
                    || filter != null || fetchSize != null || metrics != null) {
                // A file source's COUNT is the listing's line count, measured while planning: metrics has no choice.
                throw new IllegalArgumentException("source.files takes no JDBC keys (jdbc_url, user, password_env,"
                        + " table, query, columns, split_column, partitions, filter, fetch_size, metrics); file columns"
                        + " and partitions go under source.files");
            }
            columns = List.of();
        } else {
            checkJdbc(jdbcUrl, table, query, passwordEnv, filter);
            columns = columns == null ? List.of() : List.copyOf(columns);
            for (int i = 0; i < columns.size(); i++) {
                SqlNames.column("source.columns[" + i + "]", columns.get(i));
            }
            SqlNames.column("source.split_column", splitColumn);
            partitions = partitions == null ? DEFAULT_PARTITIONS : partitions;
            if (partitions < 1 || partitions > MAX_PARTITIONS) {
                throw new IllegalArgumentException("source.partitions must be between 1 and " + MAX_PARTITIONS + ", got " + partitions);
            }
            fetchSize = fetchSize == null ? DEFAULT_FETCH_SIZE : fetchSize;
            if (fetchSize < 1) {
                throw new IllegalArgumentException("source.fetch_size must be positive, got " + fetchSize);
            }
        }
        allowEmpty = allowEmpty != null && allowEmpty;
        metrics = metrics == null ? SourceMetricsTiming.AUTO : metrics;
    }

    private static void checkJdbc(String jdbcUrl, String table, String query, String passwordEnv, String filter) {
        requireText("source.jdbc_url", jdbcUrl);
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("source.jdbc_url must start with jdbc:, got '" + jdbcUrl + "'");
        }
        if ((table == null) == (query == null)) {
            throw new IllegalArgumentException("source needs exactly one of table and query");
        }
        if (table != null) {
            SqlNames.table("source.table", table);
        } else {
            requireText("source.query", query);
        }
        if (passwordEnv != null && !passwordEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("source.password_env must be an environment variable name, got '" + passwordEnv + "'");
        }
        if (filter != null) {
            requireText("source.filter", filter);
        }
    }

    /** A JDBC source. */
    public SourceSpec(String jdbcUrl, String user, String passwordEnv, String table, String query, List<String> columns,
                      String splitColumn, Integer partitions, String filter, Integer fetchSize, Boolean allowEmpty) {
        this(jdbcUrl, user, passwordEnv, table, query, columns, splitColumn, partitions, filter, fetchSize, allowEmpty,
                null, null);
    }

    /** A file source ({@code source.files}). */
    public static SourceSpec ofFiles(FilesSpec files, boolean allowEmpty) {
        return new SourceSpec(null, null, null, null, null, null, null, null, null, null, allowEmpty, null, files);
    }

    public boolean isFiles() {
        return files != null;
    }

    /** A source that refuses an empty plan. */
    public SourceSpec(String jdbcUrl, String user, String passwordEnv, String table, String query, List<String> columns,
                      String splitColumn, Integer partitions, String filter, Integer fetchSize) {
        this(jdbcUrl, user, passwordEnv, table, query, columns, splitColumn, partitions, filter, fetchSize, false);
    }

    /**
     * The password from the variable {@code password_env} names, or null when the spec names none (trust or
     * certificate authentication). Resolved at connect time, not at load time, so a spec can be checked on a host
     * that does not hold the secret.
     */
    public String resolvePassword(Map<String, String> environment) {
        if (passwordEnv == null) {
            return null;
        }
        String password = environment.get(passwordEnv);
        if (password == null) {
            throw new JobSpecException("source.password_env names " + passwordEnv + ", which is not set in the environment");
        }
        return password;
    }

    /** The filter with each {@code :business_key} replaced by {@code ?}; see {@link #filterParameterCount()}. */
    public String filterSql() {
        return filter == null ? null : BUSINESS_KEY.matcher(filter).replaceAll("?");
    }

    /** How many times the business key must be bound, in order, for {@link #filterSql()}. */
    public int filterParameterCount() {
        if (filter == null) {
            return 0;
        }
        Matcher matcher = BUSINESS_KEY.matcher(filter);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    static void requireText(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " is required");
        }
    }

    @Override
    public String toString() {
        if (files != null) {
            return "SourceSpec[files=" + files.root() + ", format=" + files.format() + ", groupBy=" + files.groupBy() + "]";
        }
        // jdbc URLs may carry a password parameter; never log them whole.
        return "SourceSpec[jdbcUrl=" + jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***") + ", user=" + user
                + ", table=" + table + ", splitColumn=" + splitColumn + ", partitions=" + partitions + "]";
    }
}
