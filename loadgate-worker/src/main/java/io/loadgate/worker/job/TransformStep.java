package io.loadgate.worker.job;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One transform of a job, written in YAML as a mapping with exactly one key: the step's kind. Rewriting steps
 * change string values in place; checking steps reject the row when it fails them.
 * <pre>
 *   - trim: [name, email]              # strip leading and trailing white space
 *   - lower: [email]                   # also upper
 *   - null_if_blank: [note]            # an empty or all-blank string becomes null
 *   - hash: [email]                    # SHA-256 of the UTF-8 value, lower-case hex (pseudonymise)
 *   - hmac: {columns: [email], key_env: PII_KEY}   # HMAC-SHA256 with a secret key: not reversible by a dictionary
 *   - require: [customer_id, amount]   # reject when null
 *   - range: {column: amount, min: 0, max: 100000}
 *   - match: {column: email, pattern: '[^@]+@[^@]+'}   # the whole value must match; null passes
 *   - max_length: {column: note, length: 200}
 *   - mapper: {command: [python3, /opt/jobs/mapper.py], output: tsv, timeout: 5m}   # first step only
 * </pre>
 *
 * <p>A {@code mapper} step runs a user's program over the source's lines before they are parsed, as Hadoop Streaming
 * runs a mapper: it is the first step of a file job, and the other steps apply to the rows it gives.
 */
public record TransformStep(List<String> trim, List<String> lower, List<String> upper, List<String> nullIfBlank,
                            List<String> hash, Hmac hmac, List<String> require, Range range, Match match,
                            MaxLength maxLength, Mapper mapper) {
    public TransformStep {
        List<String> named = new ArrayList<>();
        trim = columns("trim", trim, named);
        lower = columns("lower", lower, named);
        upper = columns("upper", upper, named);
        nullIfBlank = columns("null_if_blank", nullIfBlank, named);
        hash = columns("hash", hash, named);
        require = columns("require", require, named);
        if (hmac != null) {
            named.add("hmac");
        }
        if (range != null) {
            named.add("range");
        }
        if (match != null) {
            named.add("match");
        }
        if (maxLength != null) {
            named.add("max_length");
        }
        if (mapper != null) {
            named.add("mapper");
        }
        if (named.size() != 1) {
            throw new IllegalArgumentException("a transform step names exactly one of trim, lower, upper, null_if_blank,"
                    + " hash, hmac, require, range, match, max_length, mapper" + (named.isEmpty() ? "" : "; this one names " + named));
        }
    }

    /**
     * Rewrites text columns to the HMAC-SHA256 (lower-case hex) of their UTF-8 value under the key in the variable
     * {@code key_env} names: equal values stay equal (joins still work), but without the key no one can test guesses.
     */
    public record Hmac(List<String> columns, String keyEnv) {
        public Hmac {
            if (columns == null) {
                throw new IllegalArgumentException("hmac.columns is required");
            }
            columns = TransformStep.columns("hmac.columns", columns, new ArrayList<>());
            if (keyEnv == null || !keyEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("hmac.key_env must name an environment variable, got "
                        + (keyEnv == null ? "nothing" : "'" + keyEnv + "'"));
            }
        }
    }

    /**
     * A program that reads the partition's lines on stdin and writes rows on stdout, each input line's rows ended by
     * a line that starts with the record separator U+001E (docs/transforms.md). {@code timeout}: how long it may go
     * without taking input or giving output while it owes some before it is killed (default 5m).
     */
    public record Mapper(List<String> command, MapperOutput output, String timeout) {
        public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

        public Mapper {
            if (command == null || command.isEmpty() || command.stream().anyMatch(a -> a == null || a.isEmpty())) {
                throw new IllegalArgumentException("mapper.command must be a non-empty list of non-empty arguments,"
                        + " such as [python3, /opt/jobs/mapper.py]");
            }
            command = List.copyOf(command);
            if (output == null) {
                throw new IllegalArgumentException("mapper.output is required (tsv or json)");
            }
            if (timeout != null && FilesSpec.duration("mapper.timeout", timeout).isZero()) {
                throw new IllegalArgumentException("mapper.timeout must be above zero, got " + timeout);
            }
        }

        public Duration timeoutDuration() {
            return timeout == null ? DEFAULT_TIMEOUT : FilesSpec.duration("mapper.timeout", timeout);
        }
    }

    /** What a mapper writes, one row a line: tab-separated fields ({@code \N} for null), or a JSON object. */
    public enum MapperOutput {
        TSV,
        JSON
    }

    /** Reject rows whose value lies outside [min, max] (either bound may be left out); null passes. */
    public record Range(String column, BigDecimal min, BigDecimal max) {
        public Range {
            SqlNames.column("range.column", column);
            if (min == null && max == null) {
                throw new IllegalArgumentException("range needs min, max or both");
            }
            if (min != null && max != null && min.compareTo(max) > 0) {
                throw new IllegalArgumentException("range.min " + min.toPlainString() + " is above range.max " + max.toPlainString());
            }
        }
    }

    /** Reject rows whose string value does not match {@code pattern} as a whole; null passes. */
    public record Match(String column, String pattern) {
        public Match {
            SqlNames.column("match.column", column);
            if (pattern == null || pattern.isEmpty()) {
                throw new IllegalArgumentException("match.pattern is required");
            }
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("match.pattern is not a valid regular expression: " + e.getDescription());
            }
        }
    }

    /** Reject rows whose string value is longer than {@code length} characters; null passes. */
    public record MaxLength(String column, Integer length) {
        public MaxLength {
            SqlNames.column("max_length.column", column);
            if (length == null || length < 0) {
                throw new IllegalArgumentException("max_length.length must be a non-negative integer");
            }
        }
    }

    private static List<String> columns(String key, List<String> columns, List<String> named) {
        if (columns == null) {
            return null;
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException(key + " names no column");
        }
        for (int i = 0; i < columns.size(); i++) {
            SqlNames.column(key + "[" + i + "]", columns.get(i));
        }
        named.add(key);
        return List.copyOf(columns);
    }
}
