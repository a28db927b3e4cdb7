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

    /** A receiver URL may carry basic-auth credentials as user info. */
    static String uri(URI uri) {
        return uri.getRawUserInfo() == null ? uri.toString() : uri.toString().replace(uri.getRawUserInfo(), "****");
    }

    static String url(String url) {
        return URL_PASSWORD.matcher(url).replaceAll("$1****");
    }
}
