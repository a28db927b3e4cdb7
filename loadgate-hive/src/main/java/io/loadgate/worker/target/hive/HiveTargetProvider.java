package io.loadgate.worker.target.hive;

import io.loadgate.worker.job.HivePublishMode;
import io.loadgate.worker.job.HiveSpec;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetProvider;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/** {@code target.hive}: registered in {@code META-INF/services} so that loadgate-worker finds it on the class path. */
public final class HiveTargetProvider implements TargetProvider {
    @Override
    public String kind() {
        return "hive";
    }

    @Override
    public Target create(JobSpec job, Configuration hadoop, Map<String, String> environment) {
        HiveSpec hive = job.target().hive();
        HiveServer2Connector hiveServer2 = hive.publish() == HivePublishMode.INSERT_OVERWRITE
                ? HiveServer2Connector.of(hive.hiveserver2(), environment) : null;
        return new HiveTarget(job.jobKey(), job.target(), MetastoreConnector.of(hive, hadoop), hadoop,
                HiveTarget.keyDerived(job), hiveServer2);
    }
}
