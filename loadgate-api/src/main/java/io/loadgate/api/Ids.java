package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

final class Ids {
    private Ids() {
    }

    static void check(String field, String value, Pattern pattern) {
        requireNonNull(value, field + " is null");
        if (!pattern.matcher(value).matches()) {
            throw new IllegalArgumentException(field + " must match ^" + pattern.pattern() + "$, got '" + value + "'");
        }
    }
}
