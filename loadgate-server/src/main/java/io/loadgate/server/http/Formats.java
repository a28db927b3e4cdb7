package io.loadgate.server.http;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import java.util.regex.Pattern;

/** The field formats of the API contract. */
final class Formats {
    static final Pattern JOB_KEY = JobKey.PATTERN;
    static final Pattern BUSINESS_KEY = BusinessKey.PATTERN;
    static final Pattern PARTITION_ID = PartitionId.PATTERN;
    static final Pattern STAGE_TABLE_PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,60}");
    static final Pattern METRIC_NAME = Pattern.compile("[A-Za-z0-9_.:\\-]{1,150}");
    static final Pattern EXECUTOR = Pattern.compile("http|worker|spark");
    static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,200}");
    static final int MESSAGE = 2000;
    static final int CODE = 100;
    static final int PATH = 4000;

    private Formats() {
    }
}
