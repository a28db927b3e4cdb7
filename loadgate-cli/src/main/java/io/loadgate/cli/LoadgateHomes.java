package io.loadgate.cli;

import java.nio.file.Path;

/** {@code $LOADGATE_HOME}, default {@code ~/.loadgate}. */
final class LoadgateHomes {
    private LoadgateHomes() {
    }

    static Path home() {
        String home = System.getenv("LOADGATE_HOME");
        return home == null || home.isBlank() ? Path.of(System.getProperty("user.home"), ".loadgate") : Path.of(home);
    }
}
