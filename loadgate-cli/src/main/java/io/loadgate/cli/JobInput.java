package io.loadgate.cli;

import io.loadgate.api.BusinessKey;
import io.loadgate.worker.job.BusinessKeyFormat;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourceUnavailableException;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.source.files.FileKey;
import io.loadgate.worker.submit.RunSubmitter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The job file and business keys as every job command takes them: checked once, the same way, before any work. */
final class JobInput {
    /** The ledger's businessKey format (docs/ledger-api-v1.md). */
    static final Pattern BUSINESS_KEY = BusinessKey.PATTERN;

    private JobInput() {
    }

    static JobSpec load(Path jobFile) {
        try {
            return JobSpecLoader.load(jobFile);
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
    }

    /** The job file's text, which a run carries so that workers on any host read the same job. */
    static String text(Path jobFile) {
        try {
            return Files.readString(jobFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException("cannot read " + jobFile + ": " + CliErrors.oneLine(e), LedgerOptions.EXIT_USAGE);
        }
    }

    static String businessKey(String where, String key) {
        if (!BUSINESS_KEY.matcher(key).matches()) {
            throw new CliException(where + " must match ^" + BUSINESS_KEY.pattern() + "$, got '" + key + "'",
                    LedgerOptions.EXIT_USAGE);
        }
        return key;
    }

    /** As {@link #businessKey(String, String)}; a file job's key is an hour or a day, Thrive's 2026/11/30/14 too. */
    static String businessKey(JobSpec job, String where, String key) {
        if (!job.source().isFiles()) {
            return businessKey(where, key);
        }
        try {
            FileKey.parse(job.source().files().groupBy(), key);
        } catch (JobSpecException e) {
            throw new CliException(where + ": " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        return key;
    }

    /**
     * The canonical forms of {@code keys} for the job's business-key column, as the ledger will record them (see
     * {@link BusinessKeyFormat}), read from the source's columns before anything starts: a key the column cannot
     * hold is exit 2, an unreachable source exit 5, and two keys that are one value are refused.
     */
    static List<String> canonicalKeys(JobSpec job, List<String> keys) {
        List<SourceColumn> columns;
        Source source;
        try {
            source = Sources.forJob(job, System.getenv());
            columns = source.columns();
        } catch (SourceUnavailableException e) {
            throw new CliException(e.getMessage(), RunOutcome.SOURCE_UNAVAILABLE);
        } catch (SourceException | JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        Map<String, String> given = new LinkedHashMap<>();
        for (String key : keys) {
            String canonical;
            try {
                canonical = RunSubmitter.canonicalKey(job, columns, source.canonicalKey(key));
            } catch (JobSpecException e) {
                throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
            }
            String first = given.putIfAbsent(canonical, key);
            if (first != null) {
                throw new CliException("business keys " + first + " and " + key + " are one value of "
                        + job.target().businessKeyColumn() + ": " + canonical, LedgerOptions.EXIT_USAGE);
            }
        }
        return List.copyOf(given.keySet());
    }

    /**
     * {@link #canonicalKeys}, checked before a command starts its ledger, or null when they must be checked again
     * once it runs: without {@code --ledger}, a source that does not answer yet may be a database on the embedded
     * PostgreSQL that the command starts with its ledger (the demo's).
     */
    static List<String> canonicalKeysBeforeLedger(JobSpec job, List<String> keys, LedgerOptions ledger) {
        try {
            return canonicalKeys(job, keys);
        } catch (CliException e) {
            if (ledger.ledgerGiven() || e.exitCode() != RunOutcome.SOURCE_UNAVAILABLE) {
                throw e;
            }
            return null;
        }
    }

    /** An operator's {@code --reason}, stripped, when it says enough to be worth keeping in the ledger. */
    static String reason(String reason, int minLength) {
        String stripped = reason.strip();
        if (stripped.length() < minLength) {
            throw new CliException("--reason must be at least " + minLength + " characters, got '" + reason + "'",
                    LedgerOptions.EXIT_USAGE);
        }
        return stripped;
    }

    /**
     * The key as the ledger recorded its runs: parsed against the table's business-key column when the target
     * knows its columns (no source needed), else against the source's.
     */
    static String canonicalKey(io.loadgate.worker.target.Target target, JobSpec job, String businessKey) {
        java.util.Optional<org.apache.iceberg.Schema> columns;
        try {
            columns = target.columns();
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (io.loadgate.worker.target.TargetException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_REFUSED);
        }
        if (columns.isEmpty()) {
            return canonicalKeys(job, java.util.List.of(businessKey)).get(0);
        }
        try {
            return BusinessKeyFormat.canonical(columns.get(), job.target().businessKeyColumn(), businessKey);
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
    }
}
