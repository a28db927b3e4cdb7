package io.loadgate.worker.job;

/** How a file source's directories are named: Camus's {@code d_YYYYMMDD-HHMM}, one per ten minutes. */
public enum FileLayout {
    CAMUS
}
