package io.loadgate.server.auth;

import java.util.Locale;
import java.util.Optional;

/** Who may call what: workers move data, operators resolve what is stuck, viewers only read. */
public enum Role {
    WORKER,
    OPERATOR,
    VIEWER;

    /** Reads a role name from configuration; {@code nifi} is the worker role under its NiFi name. */
    public static Optional<Role> fromConfigName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "worker", "nifi" -> Optional.of(WORKER);
            case "operator" -> Optional.of(OPERATOR);
            case "viewer" -> Optional.of(VIEWER);
            default -> Optional.empty();
        };
    }
}
