package io.loadgate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Log levels per command: a command with progress bars keeps the terminal for them, a service logs its work. */
final class Logging {
    private Logging() {
    }

    /** Only warnings and errors on the console, unless LOADGATE_LOG_LEVEL asks for more. */
    static void quietUnlessAsked() {
        if (System.getenv("LOADGATE_LOG_LEVEL") == null) {
            ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
        }
    }
}
