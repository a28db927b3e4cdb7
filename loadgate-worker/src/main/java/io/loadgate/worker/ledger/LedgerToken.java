package io.loadgate.worker.ledger;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bearer token for the ledger. Its {@link #toString()} never shows it. It comes from a string or from a file:
 * either the {@code tokens} file that {@code loadgate server} writes under {@code $LOADGATE_HOME}
 * ({@code worker=...}, {@code operator=...} lines) or a file that holds just the token.
 */
public record LedgerToken(String value) {
    private static final Pattern ROLE_LINE = Pattern.compile("(worker|nifi|operator|viewer)\\s*=\\s*(\\S+)\\s*");
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]{1,1000}");

    public LedgerToken {
        requireNonNull(value, "value is null");
        if (!TOKEN.matcher(value).matches()) {
            throw new IllegalArgumentException("a token is 1 to 1000 printable characters without spaces");
        }
    }

    public static LedgerToken of(String value) {
        return new LedgerToken(value);
    }

    /**
     * Reads the token for {@code role} from a {@code tokens} file, or the file's only token when the file holds
     * just one. Blank lines and {@code #} comments are skipped.
     *
     * @throws IllegalArgumentException naming the file when it has no token for the role
     * @throws UncheckedIOException when the file cannot be read
     */
    public static LedgerToken fromFile(Path file, String role) {
        requireNonNull(file, "file is null");
        requireNonNull(role, "role is null");
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("token file " + file + " does not exist", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read token file " + file + ": " + e.getMessage(), e);
        }
        List<String> bare = new ArrayList<>();
        boolean hasRoles = false;
        Optional<String> forRole = Optional.empty();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = ROLE_LINE.matcher(line);
            if (m.matches()) {
                hasRoles = true;
                if (m.group(1).equals(role) && forRole.isEmpty()) {
                    forRole = Optional.of(m.group(2));
                }
            } else {
                bare.add(line);
            }
        }
        if (forRole.isPresent()) {
            return new LedgerToken(forRole.get());
        }
        if (!hasRoles && bare.size() == 1) {
            try {
                return new LedgerToken(bare.get(0));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("token file " + file + ": " + e.getMessage());
            }
        }
        if (hasRoles) {
            throw new IllegalArgumentException("token file " + file + " has no " + role + "= line");
        }
        throw new IllegalArgumentException("token file " + file + " holds " + (bare.isEmpty() ? "no token"
                : bare.size() + " lines") + "; expected one token, or role=token lines (worker=..., operator=...)");
    }

    @Override
    public String toString() {
        return "LedgerToken[****]";
    }
}
