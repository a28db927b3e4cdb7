package io.loadgate.worker.job;

import java.util.Map;

/**
 * A relational warehouse the job publishes into instead of an Iceberg catalog: a PostgreSQL, MariaDB or MySQL
 * database, reached with {@code jdbc_url} as {@code user}, the password read from the variable {@code password_env}
 * names.
 */
public record WarehouseSpec(String jdbcUrl, String user, String passwordEnv) {
    public WarehouseSpec {
        SourceSpec.requireText("target.database.jdbc_url", jdbcUrl);
        if (!jdbcUrl.startsWith("jdbc:postgresql:") && !jdbcUrl.startsWith("jdbc:mariadb:")
                && !jdbcUrl.startsWith("jdbc:mysql:")) {
            throw new IllegalArgumentException("target.database.jdbc_url must be a PostgreSQL, MariaDB or MySQL URL"
                    + " (jdbc:postgresql:..., jdbc:mariadb:... or jdbc:mysql:...), the warehouses Loadgate publishes into");
        }
        if (passwordEnv != null && !passwordEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("target.database.password_env must be an environment variable name, got '"
                    + passwordEnv + "'");
        }
    }

    /** The password, or null when the spec names no variable (trust or peer authentication). */
    public String resolvePassword(Map<String, String> environment) {
        if (passwordEnv == null) {
            return null;
        }
        String password = environment.get(passwordEnv);
        if (password == null) {
            throw new JobSpecException("target.database.password_env names " + passwordEnv
                    + ", which is not set in the environment");
        }
        return password;
    }

    @Override
    public String toString() {
        // A JDBC URL may carry a password parameter; never log it whole.
        int query = jdbcUrl.indexOf('?');
        return "WarehouseSpec[" + (query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?...") + " as " + user + "]";
    }
}
