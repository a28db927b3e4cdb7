package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every error body: {@code {code, message, requestId, details}}. {@code code} is a string, not {@link ErrorCode}, so a
 * client reads a code added by a newer server; the server writes only {@link ErrorCode} names.
 */
public record ErrorResponse(String code, String message, String requestId, Map<String, Object> details) {
    public ErrorResponse {
        requireNonNull(code, "code is null");
        // Details are free-form JSON (values may be null); their order is the server's.
        details = details == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }
}
