package io.loadgate.worker.target;

import io.loadgate.worker.job.JobSpec;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * A kind of target that lives in a module of its own because its client libraries are heavy (the Hive Metastore's
 * ~110 jars), found by {@link Targets#forJob} through {@link java.util.ServiceLoader} when that module is on the
 * class path. Like every target, {@link #create} opens nothing.
 */
public interface TargetProvider {
    /** The {@code target} key that selects it, e.g. {@code hive}. */
    String kind();

    /** {@code environment} supplies the password variables the target's spec names. */
    Target create(JobSpec job, Configuration hadoop, Map<String, String> environment);
}
