package io.loadgate.worker.job;

/**
 * What a load does when the source has columns an existing target table lacks ({@code target.schema}). The table is
 * never changed unless the job says so: a column that appears in the source is often a mistake upstream.
 */
public enum SchemaPolicy {
    /** The table must have exactly the staged columns; new ones are refused before the run, by name. */
    EXACT,
    /**
     * New columns, after the table's own (in source order), are added to the table before the run: an Iceberg
     * schema update, or {@code ALTER TABLE ... ADD COLUMN} in a warehouse. Older rows read them as null.
     */
    ADD_COLUMNS
}
