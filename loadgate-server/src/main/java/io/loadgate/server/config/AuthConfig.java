package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who may call the ledger ({@code auth.*}) and where staged files may live.
 *
 * <p>{@code tokenDigests} maps a role ({@code worker}, {@code operator}, {@code viewer}) to the SHA-256 digests
 * (64 lowercase hex characters) of its bearer tokens; a role may hold several so tokens rotate without downtime.
 * The {@code nifi} role of the file is an alias that the loader merges into {@code worker}. A role without an
 * entry has no tokens. {@code allowedRoots} are absolute paths or URIs under which reported files must lie.
 */
public record AuthConfig(Map<String, List<String>> tokenDigests, List<String> allowedRoots) {
    public static final Set<String> ROLES = Set.of("worker", "operator", "viewer");
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern URI_WITH_SCHEME = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*://.*");

    public AuthConfig {
        requireNonNull(tokenDigests, "tokenDigests is null");
        requireNonNull(allowedRoots, "allowedRoots is null");
        Map<String, List<String>> copy = new LinkedHashMap<>();
        tokenDigests.forEach((role, digests) -> {
            String key = "auth.token_digests." + role;
            if (!ROLES.contains(role)) {
                throw new ConfigException(key, "unknown role " + key + " (roles: worker, nifi, operator, viewer)");
            }
            copy.put(role, requireDigests(key, digests));
        });
        tokenDigests = Map.copyOf(copy);
        allowedRoots = List.copyOf(allowedRoots);
        // An empty list would refuse every file; far more likely a mistake than an intent, so say so.
        if (allowedRoots.isEmpty()) {
            throw new ConfigException("auth.allowed_roots",
                    "auth.allowed_roots must not be empty; leave it out to allow the default roots");
        }
        allowedRoots.forEach(AuthConfig::requireRoot);
    }

    static List<String> defaultAllowedRoots(Path home) {
        // Both spellings of the local stage: workers write file:// URIs, NiFi flows send bare paths.
        return List.of("/data/loadgate/stage", home.resolve("stage").toString(), home.resolve("stage").toUri().toString());
    }

    /** The digests of {@code role}'s tokens, empty when it has none. */
    public List<String> digests(String role) {
        return tokenDigests.getOrDefault(role, List.of());
    }

    /** Checks that every entry of {@code digests} is a lowercase SHA-256 hex digest; {@code key} names the list. */
    static List<String> requireDigests(String key, List<String> digests) {
        requireNonNull(digests, key + " is null");
        for (String digest : digests) {
            if (digest == null || !SHA256_HEX.matcher(digest).matches()) {
                throw new ConfigException(key, key + " must hold SHA-256 digests as 64 lowercase hex characters, got '"
                        + digest + "'");
            }
        }
        return List.copyOf(digests);
    }

    private static void requireRoot(String root) {
        requireNonNull(root, "auth.allowed_roots entry is null");
        boolean valid;
        if (URI_WITH_SCHEME.matcher(root).matches()) {
            try {
                URI uri = new URI(root);
                valid = uri.getPath() != null && uri.getPath().startsWith("/");
            } catch (URISyntaxException e) {
                valid = false;
            }
        } else {
            valid = root.startsWith("/");
        }
        if (!valid) {
            throw new ConfigException("auth.allowed_roots",
                    "auth.allowed_roots entries must be absolute paths or URIs such as file:///data, got '"
                            + root + "'");
        }
    }
}
