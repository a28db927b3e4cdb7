package jakarta.servlet;

/**
 * Servlet 5's deprecated marker, gone from servlet 6. The tests run the ledger (Javalin on Jetty 12, servlet 6) in
 * the JVM that runs Spark, whose shaded Jetty 11 still checks for this interface when Spark builds its metrics
 * servlet (even with the UI off). Only the tests need it: on a cluster, Spark runs on its own servlet 5.
 */
@Deprecated
public interface SingleThreadModel {
}
