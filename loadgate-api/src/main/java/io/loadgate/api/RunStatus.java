package io.loadgate.api;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A run's state (contract: "Run states"). {@link #isActive()} is the one definition of active and terminal: the
 * ledger's SQL is built from {@link #ACTIVE} and {@link #TERMINAL}, and a test holds the schema's partial unique index
 * (one active run per job and business key) to the same set.
 */
public enum RunStatus {
    CREATED,
    EXTRACTING,
    EXTRACTED_VALIDATED,
    STAGE_VALIDATING,
    STAGING_VALIDATED,
    PUBLISHING,
    PUBLISHED,
    PUBLISH_UNKNOWN,
    SUCCESS,
    FAILED_MANIFEST,
    FAILED_EXTRACT,
    FAILED_SNAPSHOT_EXPIRED,
    FAILED_STAGE_VALIDATION,
    FAILED_PUBLISH,
    FAILED_TARGET_VALIDATION,
    TIMED_OUT,
    CANCELLED;

    /** An active run blocks a new run for the same job key and business key. */
    public boolean isActive() {
        return switch (this) {
            case CREATED, EXTRACTING, EXTRACTED_VALIDATED, STAGE_VALIDATING, STAGING_VALIDATED, PUBLISHING,
                    PUBLISHED, PUBLISH_UNKNOWN -> true;
            case SUCCESS, FAILED_MANIFEST, FAILED_EXTRACT, FAILED_SNAPSHOT_EXPIRED, FAILED_STAGE_VALIDATION,
                    FAILED_PUBLISH, FAILED_TARGET_VALIDATION, TIMED_OUT, CANCELLED -> false;
        };
    }

    /** The active states, in declaration order. */
    public static final Set<RunStatus> ACTIVE = states(true);
    /** The terminal states, in declaration order. */
    public static final Set<RunStatus> TERMINAL = states(false);

    private static Set<RunStatus> states(boolean active) {
        return Collections.unmodifiableSet(Arrays.stream(values()).filter(s -> s.isActive() == active)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RunStatus.class))));
    }

    public boolean isTerminal() {
        return !isActive();
    }

    public boolean isFailure() {
        return isTerminal() && this != SUCCESS;
    }
}
