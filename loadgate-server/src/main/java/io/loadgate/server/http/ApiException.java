package io.loadgate.server.http;

import io.loadgate.api.ErrorCode;
import java.util.Map;

/** A refusal decided by the HTTP layer itself (authentication, authorisation, routing). */
final class ApiException extends RuntimeException {
    private final ErrorCode code;

    ApiException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    ErrorCode code() {
        return code;
    }

    Map<String, Object> details() {
        return Map.of();
    }
}
