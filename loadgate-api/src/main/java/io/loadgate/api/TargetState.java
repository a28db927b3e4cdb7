package io.loadgate.api;

/**
 * What a SUCCESS run's publish is to its target now (extension): whether the target's partition of its business key
 * holds its rows. Only SUCCESS runs have one; every other run published nothing that stayed.
 */
public enum TargetState {
    /** The latest SUCCESS of its job and key, not rolled back: the target holds its rows. */
    CURRENT,
    /** A later SUCCESS of the same job and key replaced its rows. */
    REPLACED,
    /** An operator removed its rows from the target ({@code loadgate rollback}). */
    ROLLED_BACK
}
