package io.loadgate.server.http;

import java.util.Map;

/** A refusal decided by the HTTP layer itself (authentication, authorisation, routing). */
final class ApiException extends RuntimeException {
    private final int status;
    private final String code;

    ApiException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }

    Map<String, Object> details() {
        return Map.of();
    }
}
