package io.loadgate.worker.job;

/** How the lines of a file source are read: one JSON object, delimited fields, or the whole line as text. */
public enum FileFormat {
    NDJSON,
    CSV,
    TSV,
    TEXT
}
