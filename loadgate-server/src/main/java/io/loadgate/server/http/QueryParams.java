package io.loadgate.server.http;

import io.loadgate.api.ErrorCode;
import io.loadgate.ledger.LedgerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks a read's path and query parameters and collects every problem, so that one 422 names each bad parameter,
 * as {@link RequestBody} does for a body's fields.
 */
final class QueryParams {
    private final List<Map<String, String>> errors = new ArrayList<>();

    /** {@code value} as given; a problem is recorded when it is present and does not match {@code format}. */
    String matching(String name, String value, Pattern format) {
        if (value != null && !format.matcher(value).matches()) {
            error(name, "must match " + format.pattern());
        }
        return value;
    }

    /** A page size: {@code defaultLimit} when {@code text} is absent, else an integer from 1 to {@code max}. */
    int limit(String text, int defaultLimit, int max) {
        if (text == null) {
            return defaultLimit;
        }
        int limit;
        try {
            limit = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > max) {
            error("limit", "must be an integer between 1 and " + max);
        }
        return limit;
    }

    void error(String name, String message) {
        errors.add(RequestBody.error(name, message));
    }

    /** Throws 422 REQUEST_INVALID with {@code message}, naming every bad parameter, if there is any. */
    void finish(String message) {
        if (!errors.isEmpty()) {
            throw new LedgerException.Invalid(ErrorCode.REQUEST_INVALID, message, Map.of("errors", errors));
        }
    }
}
