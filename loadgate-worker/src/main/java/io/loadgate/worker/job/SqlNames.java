package io.loadgate.worker.job;

import java.util.regex.Pattern;

/**
 * Checks of the identifiers a job spec puts into SQL. Table and column names are spliced into statements (they
 * cannot be bind parameters), so only plain identifiers are accepted: no quotes, spaces or semicolons can reach
 * the SQL text.
 */
public final class SqlNames {
    private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,127}");
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,127}(\\.[A-Za-z_][A-Za-z0-9_$]{0,127}){0,2}");

    private SqlNames() {
    }

    /** Returns {@code name} when it is a plain column identifier, else throws naming {@code key}. */
    public static String column(String key, String name) {
        if (name == null || !COLUMN.matcher(name).matches()) {
            throw new IllegalArgumentException(key + " must be a plain column name (" + COLUMN + "), got " + quoted(name));
        }
        return name;
    }

    /** Returns {@code name} when it is a plain, optionally schema-qualified table identifier. */
    public static String table(String key, String name) {
        if (name == null || !TABLE.matcher(name).matches()) {
            throw new IllegalArgumentException(key + " must be a plain table name like schema.table, got " + quoted(name));
        }
        return name;
    }

    private static String quoted(String value) {
        return value == null ? "nothing" : "'" + value + "'";
    }
}
