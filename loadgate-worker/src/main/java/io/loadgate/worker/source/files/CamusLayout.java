package io.loadgate.worker.source.files;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Pattern;

/** Camus's directory names: {@code d_YYYYMMDD-HHMM}, the directory's local time, one per ten minutes. */
public final class CamusLayout {
    private static final Pattern NAME = Pattern.compile("d_[0-9]{8}-[0-9]{4}");
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("'d_'uuuuMMdd-HHmm");

    private CamusLayout() {
    }

    /** The time a directory named {@code name} holds, or empty when the name is not a Camus directory's. */
    public static Optional<LocalDateTime> time(String name) {
        if (!NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDateTime.parse(name, FORMAT));
        } catch (DateTimeParseException e) {
            // d_20261399-9999 matches the pattern but is no time: not a Camus directory.
            return Optional.empty();
        }
    }

    public static String name(LocalDateTime time) {
        return FORMAT.format(time);
    }
}
