package io.loadgate.server.http;

import io.loadgate.api.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answer to a request it refuses before any route sees it (bad bytes or an ambiguous segment in the URL,
 * a malformed request line): the API's error envelope with a request id, not Jetty's HTML page.
 */
final class EnvelopeErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) throws IOException {
        String requestId = ApiServer.requestId(request.getHeaders().get("X-Request-Id"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", switch (code) {
            case 400 -> ErrorCode.BAD_REQUEST.name();
            case 404 -> ErrorCode.NOT_FOUND.name();
            case 413 -> ErrorCode.REQUEST_TOO_LARGE.name();
            case 414 -> ErrorCode.URI_TOO_LONG.name();
            case 431 -> ErrorCode.HEADERS_TOO_LARGE.name();
            // A status Jetty refuses with that the contract has no code for.
            default -> "HTTP_" + code;
        });
        body.put("message", "the HTTP request was refused before it reached the API: "
                + (message == null || message.isBlank() ? "status " + code : message));
        body.put("requestId", requestId);
        body.put("details", Map.of());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("X-Request-Id", requestId);
        response.getHeaders().put(ApiServer.NOSNIFF);
        response.write(true, ByteBuffer.wrap(Json.write(body).getBytes(StandardCharsets.UTF_8)), callback);
    }
}
