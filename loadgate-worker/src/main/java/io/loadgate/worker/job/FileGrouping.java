package io.loadgate.worker.job;

/** Which directories one business key of a file source covers: those of one hour, or of one day. */
public enum FileGrouping {
    HOUR,
    DAY
}
