package io.loadgate.worker.source.jdbc;

/** JDBC URLs as the drivers on the classpath take them. */
public final class JdbcUrls {
    private JdbcUrls() {
    }

    /**
     * MariaDB's driver, which serves MySQL too, accepts a {@code jdbc:mysql:} URL only when the URL itself says so (the
     * driver is chosen by URL before any property is read); job specs admit both schemes.
     */
    public static String forDriver(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.contains("permitMysqlScheme")) {
            return jdbcUrl;
        }
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "permitMysqlScheme";
    }
}
