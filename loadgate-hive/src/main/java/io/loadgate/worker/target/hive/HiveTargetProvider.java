package io.loadgate.worker.target.hive;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetProvider;
import org.apache.hadoop.conf.Configuration;

/** {@code target.hive}: registered in {@code META-INF/services} so that loadgate-worker finds it on the class path. */
public final class HiveTargetProvider implements TargetProvider {
    @Override
    public String kind() {
        return "hive";
    }

    @Override
    public Target create(JobSpec job, Configuration hadoop) {
        return new HiveTarget(job.jobKey(), job.target(), MetastoreConnector.of(job.target().hive(), hadoop), hadoop,
                HiveTarget.keyDerived(job));
    }
}
