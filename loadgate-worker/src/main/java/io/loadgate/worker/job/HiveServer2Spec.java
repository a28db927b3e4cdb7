package io.loadgate.worker.job;

import java.util.Map;

/**
 * The HiveServer2 a Hive target publishes through in {@link HivePublishMode#INSERT_OVERWRITE} mode
 * ({@code target.hive.hiveserver2}).
 *
 * @param url {@code jdbc:hive2://host:port/database}, with any session settings Hive's driver takes after {@code ;}
 * @param user the user to connect as (null: the driver's default, e.g. under Kerberos)
 * @param passwordEnv the environment variable holding the password (null: none, e.g. NOSASL or Kerberos)
 * @param jdbcDriverPath Hive's JDBC driver, a jar ({@code hive-jdbc-4.0.1-standalone.jar}) or a directory of jars: it
 *     is loaded in a class loader of its own, since its unshaded Hadoop cannot share the worker's class path
 */
public record HiveServer2Spec(String url, String user, String passwordEnv, String jdbcDriverPath) {
    public HiveServer2Spec {
        SourceSpec.requireText("target.hive.hiveserver2.url", url);
        if (!url.startsWith("jdbc:hive2://")) {
            throw new IllegalArgumentException("target.hive.hiveserver2.url must be jdbc:hive2://host:port/database,"
                    + " got '" + redacted(url) + "'");
        }
        SourceSpec.requireText("target.hive.hiveserver2.jdbc_driver_path", jdbcDriverPath);
        if (passwordEnv != null && !passwordEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("target.hive.hiveserver2.password_env must be an environment variable"
                    + " name, got '" + passwordEnv + "'");
        }
    }

    /** The password, or null when the spec names no variable. Resolved at connect time, as the sources' are. */
    public String resolvePassword(Map<String, String> environment) {
        if (passwordEnv == null) {
            return null;
        }
        String password = environment.get(passwordEnv);
        if (password == null) {
            throw new JobSpecException("target.hive.hiveserver2.password_env names " + passwordEnv
                    + ", which is not set in the environment");
        }
        return password;
    }

    /** The URL without its session settings, which may carry a password or a keystore's: for messages. */
    public String redactedUrl() {
        return redacted(url);
    }

    private static String redacted(String url) {
        int settings = url.indexOf(';');
        return settings < 0 ? url : url.substring(0, settings) + ";...";
    }

    @Override
    public String toString() {
        return "HiveServer2Spec[" + redactedUrl() + " as " + user + ", driver " + jdbcDriverPath + "]";
    }
}
