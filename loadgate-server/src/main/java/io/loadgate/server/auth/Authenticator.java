package io.loadgate.server.auth;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Matches a bearer token against the configured digests. Every digest is compared, in constant time, whatever
 * matched before, so the time taken says nothing about which digest or how many bytes matched.
 */
public final class Authenticator {
    private final List<Entry> entries;

    public Authenticator(Map<Role, List<String>> digestsByRole) {
        requireNonNull(digestsByRole, "digestsByRole is null");
        List<Entry> list = new ArrayList<>();
        digestsByRole.forEach((role, digests) -> digests.forEach(hex ->
                list.add(new Entry(role, HexFormat.of().parseHex(hex), hex.substring(0, 12)))));
        this.entries = List.copyOf(list);
    }

    /** The caller behind a token: its role and a token id (a digest prefix) that events may record. */
    public record Principal(Role role, String tokenId) {
    }

    public Optional<Principal> authenticate(String authorizationHeader) {
        if (authorizationHeader == null || !authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        byte[] presented = Tokens.sha256(authorizationHeader.substring(7).trim());
        Principal found = null;
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(entry.digest(), presented) && found == null) {
                found = new Principal(entry.role(), entry.tokenId());
            }
        }
        return Optional.ofNullable(found);
    }

    private record Entry(Role role, byte[] digest, String tokenId) {
    }
}
