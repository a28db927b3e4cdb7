package io.loadgate.worker.transform;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.TransformSpec;
import io.loadgate.worker.job.TransformStep;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A job's transforms bound to the columns of its source: each step is checked against the schema once, before a
 * row is read, so a misnamed column or a rewrite of a number fails the run with one line instead of row by row.
 *
 * <p>Rewriting steps may not touch a column that the job's validation measures (sums, extremes, null counts,
 * primary key) or the business key: the staged rows plus the rejected rows (kept with their original values)
 * must reproduce the source's metrics exactly, and the business key decides the partition a row is published to.
 * Checking steps may name any column.
 */
public final class TransformChain implements RowTransform {
    private final List<RowTransform> steps;
    private final List<RowTransform> pseudonymisers;
    private final boolean rewrites;

    private TransformChain(List<RowTransform> steps, List<RowTransform> pseudonymisers, boolean rewrites) {
        this.steps = List.copyOf(steps);
        this.pseudonymisers = List.copyOf(pseudonymisers);
        this.rewrites = rewrites;
    }

    /**
     * Binds {@code job}'s transforms to {@code schema} (the staged chunks' schema); {@code environment} holds the
     * variables secret keys are read from.
     *
     * @throws IllegalArgumentException naming the step and column when a step cannot apply to this source
     */
    public static TransformChain bind(JobSpec job, Schema schema, Map<String, String> environment) {
        requireNonNull(job, "job is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(environment, "environment is null");
        TransformSpec spec = job.transform();
        Set<String> protectedColumns = new LinkedHashSet<>();
        job.validation().referencedColumns().forEach(c -> protectedColumns.add(c.toLowerCase(Locale.ROOT)));
        protectedColumns.add(job.target().businessKeyColumn().toLowerCase(Locale.ROOT));
        List<RowTransform> bound = new ArrayList<>();
        List<RowTransform> pseudonymisers = new ArrayList<>();
        boolean rewrites = false;
        for (int i = 0; i < spec.steps().size(); i++) {
            Binder binder = new Binder("transform.steps[" + i + "]", schema, protectedColumns, environment);
            TransformStep step = spec.steps().get(i);
            rewrites |= binder.bind(step, bound, pseudonymisers);
        }
        return new TransformChain(bound, pseudonymisers, rewrites);
    }

    /**
     * Applies the job's {@code hash} and {@code hmac} steps, and only those, to a rejected row before it is kept: the
     * rejects otherwise hold rows as the source had them, but a value the job pseudonymises must not outlive the load
     * in the clear.
     */
    public void pseudonymise(org.apache.iceberg.data.Record rejected) {
        for (RowTransform step : pseudonymisers) {
            step.apply(rejected);
        }
    }

    /** True when the chain has no step: rows pass through untouched. */
    public boolean isEmpty() {
        return steps.isEmpty();
    }

    /** True when some step changes values, so a rejected row's original values must be kept before the chain runs. */
    public boolean rewrites() {
        return rewrites;
    }

    @Override
    public String apply(org.apache.iceberg.data.Record row) {
        for (RowTransform step : steps) {
            String reason = step.apply(row);
            if (reason != null) {
                return reason;
            }
        }
        return null;
    }

    private record Binder(String where, Schema schema, Set<String> protectedColumns, Map<String, String> environment) {
        /**
         * Adds the step's transforms to {@code into}, and those that pseudonymise to {@code pseudonymisers} too; true
         * when they rewrite values.
         */
        boolean bind(TransformStep step, List<RowTransform> into, List<RowTransform> pseudonymisers) {
            if (step.mapper() != null) {
                // The source's reader runs it (MapperProcess): it turns lines into the rows this chain is given.
                return false;
            }
            if (step.trim() != null) {
                rewrite("trim", step.trim(), into, StringRewrites::trim);
            } else if (step.lower() != null) {
                rewrite("lower", step.lower(), into, StringRewrites::lower);
            } else if (step.upper() != null) {
                rewrite("upper", step.upper(), into, StringRewrites::upper);
            } else if (step.nullIfBlank() != null) {
                rewrite("null_if_blank", step.nullIfBlank(), into, StringRewrites::nullIfBlank);
            } else if (step.hash() != null) {
                pseudonymisers.addAll(rewrite("hash", step.hash(), into, StringRewrites::sha256Hex));
            } else if (step.hmac() != null) {
                String key = environment.get(step.hmac().keyEnv());
                if (key == null || key.isEmpty()) {
                    throw new IllegalArgumentException(where + ": hmac.key_env names " + step.hmac().keyEnv()
                            + ", which is not set in the environment");
                }
                for (String column : step.hmac().columns()) {
                    // One Mac per column: a bound chain runs on the one thread that reads its partition.
                    pseudonymisers.addAll(rewrite("hmac", List.of(column), into, StringRewrites.hmacSha256Hex(key)));
                }
            } else if (step.require() != null) {
                for (String column : step.require()) {
                    into.add(Checks.require(position(column), column));
                }
                return false;
            } else if (step.range() != null) {
                TransformStep.Range range = step.range();
                int position = position(range.column());
                Type type = schema.columns().get(position).type();
                if (!isNumber(type)) {
                    throw new IllegalArgumentException(where + ": range needs a numeric column; " + range.column()
                            + " is " + type);
                }
                into.add(Checks.range(position, range.column(), range.min(), range.max()));
                return false;
            } else if (step.match() != null) {
                int position = stringColumn("match", step.match().column());
                into.add(Checks.match(position, step.match().column(), step.match().pattern()));
                return false;
            } else {
                int position = stringColumn("max_length", step.maxLength().column());
                into.add(Checks.maxLength(position, step.maxLength().column(), step.maxLength().length()));
                return false;
            }
            return true;
        }

        /** Adds one rewrite per column to {@code into} and returns them. */
        private List<RowTransform> rewrite(String kind, List<String> columns, List<RowTransform> into,
                                           java.util.function.UnaryOperator<String> function) {
            List<RowTransform> added = new ArrayList<>();
            for (String column : columns) {
                if (protectedColumns.contains(column.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException(where + ": " + kind + " may not rewrite " + column
                            + ": the job validates it or publishes by it; check it with require, range, match or"
                            + " max_length instead");
                }
                added.add(StringRewrites.of(stringColumn(kind, column), function));
            }
            into.addAll(added);
            return added;
        }

        private int stringColumn(String kind, String column) {
            int position = position(column);
            Type type = schema.columns().get(position).type();
            if (type.typeId() != Type.TypeID.STRING) {
                throw new IllegalArgumentException(where + ": " + kind + " applies to text columns; " + column
                        + " is " + type);
            }
            return position;
        }

        private int position(String column) {
            Types.NestedField field = schema.caseInsensitiveFindField(column);
            if (field == null) {
                throw new IllegalArgumentException(where + " names column " + column + ", which the source does not have");
            }
            return schema.columns().indexOf(field);
        }

        private static boolean isNumber(Type type) {
            return switch (type.typeId()) {
                case INTEGER, LONG, FLOAT, DOUBLE, DECIMAL -> true;
                default -> false;
            };
        }
    }
}
