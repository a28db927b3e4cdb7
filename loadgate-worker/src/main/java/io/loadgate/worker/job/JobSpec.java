package io.loadgate.worker.job;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.JobKey;

/** One load job, as read from its YAML file by {@link JobSpecLoader}. */
public record JobSpec(String jobKey, SourceSpec source, TargetSpec target, StagingSpec staging,
                      ValidationSpec validation, RecoverySpec recovery, TransformSpec transform) {
    public JobSpec {
        if (jobKey == null || !JobKey.PATTERN.matcher(jobKey).matches()) {
            throw new IllegalArgumentException("job_key must match ^" + JobKey.PATTERN.pattern() + "$, got " + (jobKey == null ? "nothing" : "'" + jobKey + "'"));
        }
        requireNonNull(source, "source is required");
        requireNonNull(target, "target is required");
        requireNonNull(staging, "staging is required");
        validation = validation == null ? ValidationSpec.COUNT_ONLY : validation;
        recovery = recovery == null ? RecoverySpec.DEFAULT : recovery;
        transform = transform == null ? TransformSpec.NONE : transform;
        if (transform.mapper() != null && (!source.isFiles() || source.files().header())) {
            // A mapper is given every line as it is: a table's rows are not lines, and a header is not a record.
            throw new IllegalArgumentException("transform.steps[0].mapper needs a source.files source without a header;"
                    + (source.isFiles() ? " source.files.header is true" : " this job reads a database"));
        }
        if (source.isFiles()) {
            PartitionColumnsSpec derived = source.files().partitionColumns();
            boolean byDay = source.files().groupBy() == FileGrouping.DAY
                    && target.businessKeyColumn().equals(derived.date());
            if (!target.businessKeyColumn().equals(derived.key()) && !byDay) {
                // A target replaces exactly the rows of one business key by this column: it must be the key.
                throw new IllegalArgumentException("target.business_key_column of a file source must be the derived key"
                        + " column " + derived.key() + (source.files().groupBy() == FileGrouping.DAY ? " or date column "
                        + derived.date() : "") + " (source.files.partition_columns), got " + target.businessKeyColumn());
            }
        }
    }
}
