package io.loadgate.server.config;

import java.net.URI;
import java.util.regex.Pattern;

/** How secrets look in logs: present or absent, never their text. */
final class Masking {
    // PostgreSQL JDBC URLs may carry the password as a query parameter.
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");

    private Masking() {
    }

    static String secret(String secret) {
        return secret.isEmpty() ? "<none>" : "****";
    }

    /** A receiver URL may carry basic-auth credentials before the {@code @} of its authority. */
    static String uri(URI uri) {
        // The raw authority, not the user info: the latter is null when the host is missing or malformed.
        String authority = uri.getRawAuthority();
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        return at < 0 ? uri.toString() : uri.toString().replace(authority, "****" + authority.substring(at));
    }

    static String url(String url) {
        return URL_PASSWORD.matcher(url).replaceAll("$1****");
    }
}
