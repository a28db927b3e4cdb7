package io.loadgate.ledger.run;

import io.loadgate.api.ErrorCode;
import io.loadgate.ledger.LedgerException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A staging location as callers send it — a bare absolute path (the cluster's default file system) or a URI
 * such as {@code hdfs://nn:8020/data} or {@code file:///var/stage} — normalised once, so that containment is a
 * comparison of scheme, authority and whole path segments (so {@code run_id=abc} never contains
 * {@code run_id=abcd/...}).
 */
public record StagePath(String scheme, String authority, String path) {
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");

    public StagePath {
        authority = authority == null ? "" : authority;
    }

    /** Parses and normalises, or throws {@link IllegalArgumentException} saying what is wrong. */
    public static StagePath parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("path is empty");
        }
        // Any % escape, not only %2e and %2f: a double-encoded one (%252e) or an overlong UTF-8 one (%c0%ae) is a
        // dot or a slash to whatever decodes it once more, and no staging path needs one.
        if (text.indexOf('%') >= 0) {
            throw new IllegalArgumentException("path contains a % escape");
        }
        if (text.indexOf('\\') >= 0 || text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("path contains an escaped separator");
        }
        String scheme = null;
        String authority = "";
        String rawPath;
        if (text.startsWith("/")) {
            if (text.startsWith("//")) {
                throw new IllegalArgumentException("path starts with // (a host without a scheme)");
            }
            rawPath = text;
        } else if (SCHEME.matcher(text).matches()) {
            URI uri;
            try {
                uri = new URI(text);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("not a valid URI: " + e.getReason());
            }
            if (uri.isOpaque() || uri.getRawPath() == null || !uri.getRawPath().startsWith("/")) {
                throw new IllegalArgumentException("URI has no absolute path");
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException("URI must not carry a query, fragment or user");
            }
            scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority().toLowerCase(Locale.ROOT);
            rawPath = uri.getRawPath();
        } else {
            throw new IllegalArgumentException("path is not absolute");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : rawPath.split("/")) {
            if (segment.equals("..")) {
                throw new IllegalArgumentException("path contains ..");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        return new StagePath(scheme, authority, "/" + String.join("/", segments));
    }

    /** Parses a caller's path, or fails with the given 422 code. */
    public static StagePath parse(String text, ErrorCode errorCode) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new LedgerException.Invalid(errorCode, e.getMessage() + ": " + text);
        }
    }

    public StagePath resolve(String... children) {
        StringBuilder p = new StringBuilder(path.equals("/") ? "" : path);
        for (String child : children) {
            p.append('/').append(child);
        }
        return new StagePath(scheme, authority, p.toString());
    }

    /** True when {@code other} is this location or lies below it, on the same file system. */
    public boolean contains(StagePath other) {
        if (!java.util.Objects.equals(scheme, other.scheme) || !authority.equals(other.authority)) {
            return false;
        }
        return other.path.equals(path) || path.equals("/") || other.path.startsWith(path + "/");
    }

    /** True when {@code other} lies strictly below this location. */
    public boolean strictlyContains(StagePath other) {
        return contains(other) && !other.path.equals(path);
    }

    @Override
    public String toString() {
        if (scheme == null) {
            return path;
        }
        return scheme + "://" + authority + path;
    }
}
