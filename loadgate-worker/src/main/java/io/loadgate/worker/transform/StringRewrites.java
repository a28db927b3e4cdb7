package io.loadgate.worker.transform;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The rewriting steps: functions of one text value, applied in place; null stays null. */
final class StringRewrites {
    private StringRewrites() {
    }

    static RowTransform of(int position, UnaryOperator<String> function) {
        return row -> {
            Object value = row.get(position);
            if (value != null) {
                row.set(position, function.apply(value.toString()));
            }
            return null;
        };
    }

    static String trim(String value) {
        return value.strip();
    }

    static String lower(String value) {
        return value.toLowerCase(Locale.ROOT);
    }

    static String upper(String value) {
        return value.toUpperCase(Locale.ROOT);
    }

    static String nullIfBlank(String value) {
        return value.isBlank() ? null : value;
    }

    /** Not thread-safe (it holds one {@link Mac}): bind one per thread. */
    static UnaryOperator<String> hmacSha256Hex(String key) {
        Mac mac;
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
        return value -> HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
    }

    static String sha256Hex(String value) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
