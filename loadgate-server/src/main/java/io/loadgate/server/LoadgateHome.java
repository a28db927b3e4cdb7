package io.loadgate.server;

import io.loadgate.server.auth.Tokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * {@code $LOADGATE_HOME}: the embedded database, the stage, and on first start a worker and an operator token.
 * The tokens go to {@code tokens} (mode 0600) for the user; the server keeps only their digests, in
 * {@code loadgate.yaml}, which later starts read when no {@code --config} is given.
 */
public final class LoadgateHome {
    public static final String CONFIG_FILE = "loadgate.yaml";
    public static final String TOKENS_FILE = "tokens";

    private final Path home;

    public LoadgateHome(Path home) {
        this.home = home;
    }

    public Path path() {
        return home;
    }

    public Path tokensFile() {
        return home.resolve(TOKENS_FILE);
    }

    public Path configFile() {
        return home.resolve(CONFIG_FILE);
    }

    /** Creates the home's config and tokens unless they exist; returns the config file to load. */
    public Path ensureInitialised() {
        Path config = configFile();
        if (Files.exists(config)) {
            return config;
        }
        String worker = Tokens.generate();
        String operator = Tokens.generate();
        try {
            Files.createDirectories(home);
            Files.createDirectories(home.resolve("stage"));
            Path tokens = tokensFile();
            Files.deleteIfExists(tokens);
            Files.createFile(tokens, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tokens, "worker=" + worker + "\noperator=" + operator + "\n", StandardOpenOption.APPEND);
            Path partial = home.resolve(CONFIG_FILE + ".new");
            Files.writeString(partial, """
                    # Written by loadgate on first start. Tokens are in %s; only their SHA-256 digests are kept here.
                    auth:
                      token_digests:
                        worker: ["%s"]
                        operator: ["%s"]
                    """.formatted(tokens, Tokens.digest(worker), Tokens.digest(operator)));
            // The config appears whole or not at all: a crash here leaves no half-written file to load.
            Files.move(partial, config, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot initialise " + home + ": " + e.getMessage(), e);
        }
    }

    /** The token of {@code role} from the tokens file, when the file is there. */
    public Optional<String> token(String role) {
        try {
            if (!Files.exists(tokensFile())) {
                return Optional.empty();
            }
            return Files.readAllLines(tokensFile()).stream()
                    .filter(line -> line.startsWith(role + "="))
                    .map(line -> line.substring(role.length() + 1).trim())
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + tokensFile() + ": " + e.getMessage(), e);
        }
    }
}
