package io.loadgate.server;

import static java.util.Objects.requireNonNull;

import io.loadgate.server.auth.Tokens;
import io.loadgate.server.config.DatabaseConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code $LOADGATE_HOME}: the embedded database, the stage, and on first start a worker, an operator and a viewer
 * token (the viewer's for engines that only read the tables, through the Iceberg REST catalog).
 * The tokens go to {@code tokens} (mode 0600) for the user; the server keeps only their digests, in
 * {@code loadgate.yaml}, which later starts read when no {@code --config} is given.
 */
public final class LoadgateHome {
    public static final String CONFIG_FILE = "loadgate.yaml";
    public static final String TOKENS_FILE = "tokens";
    /** Written by a running {@code loadgate server}, removed when it stops: where other commands find it. */
    public static final String SERVER_FILE = "server";

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

    /**
     * A {@code loadgate server} running on this home: its process, its API on loopback, and its embedded
     * PostgreSQL's port when it has one (0 otherwise).
     */
    public record RunningServer(long pid, String url, int embeddedPort) {
        public RunningServer {
            requireNonNull(url, "url is null");
        }
    }

    public Path serverFile() {
        return home.resolve(SERVER_FILE);
    }

    /** Records this process as the home's server; written whole or not at all. */
    public void recordServer(RunningServer server) {
        Path partial = home.resolve(SERVER_FILE + ".new");
        try {
            Files.createDirectories(home);
            Files.writeString(partial, "pid=" + server.pid() + "\nurl=" + server.url() + "\nembedded_port="
                    + server.embeddedPort() + "\n");
            Files.move(partial, serverFile(), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + serverFile() + ": " + e.getMessage(), e);
        }
    }

    /** Removes the record if it is this process's (a second server that failed to start must not remove it). */
    public void forgetServer(long pid) {
        if (runningServer().map(s -> s.pid() == pid).orElse(false)) {
            try {
                Files.deleteIfExists(serverFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove " + serverFile() + ": " + e.getMessage(), e);
            }
        }
    }

    /** The server recorded here, if its process is alive (a server killed with -9 leaves a record behind). */
    public Optional<RunningServer> runningServer() {
        Properties values = new Properties();
        try (var in = Files.newBufferedReader(serverFile())) {
            values.load(in);
            RunningServer server = new RunningServer(Long.parseLong(values.getProperty("pid", "")),
                    values.getProperty("url", ""), Integer.parseInt(values.getProperty("embedded_port", "0")));
            boolean alive = ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false);
            return alive && !server.url().isEmpty() ? Optional.of(server) : Optional.empty();
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            // A record being replaced or half-read: no server to use; a server that is there says so by its port.
            return Optional.empty();
        }
    }

    /**
     * Creates the home's config and tokens unless they exist; returns the config file to load. A home made before
     * the viewer token existed gets one now ({@link #addViewerToken}).
     */
    public Path ensureInitialised() {
        Path config = configFile();
        if (Files.exists(config)) {
            addViewerToken(config);
            return config;
        }
        String worker = Tokens.generate();
        String operator = Tokens.generate();
        String viewer = Tokens.generate();
        try {
            Files.createDirectories(home);
            Files.createDirectories(home.resolve("stage"));
            Path tokens = tokensFile();
            Files.deleteIfExists(tokens);
            Files.createFile(tokens, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tokens, "worker=" + worker + "\noperator=" + operator + "\nviewer=" + viewer + "\n",
                    StandardOpenOption.APPEND);
            Path partial = home.resolve(CONFIG_FILE + ".new");
            Files.writeString(partial, """
                    # Written by loadgate on first start. Tokens are in %s; only their SHA-256 digests are kept here.
                    auth:
                      token_digests:
                        worker: ["%s"]
                        operator: ["%s"]
                        viewer: ["%s"]
                    """.formatted(tokens, Tokens.digest(worker), Tokens.digest(operator), Tokens.digest(viewer))
                    + embeddedPortLines());
            // The config appears whole or not at all: a crash here leaves no half-written file to load.
            Files.move(partial, config, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot initialise " + home + ": " + e.getMessage(), e);
        }
    }

    /**
     * The config lines giving a new home's embedded PostgreSQL a port of its own, when the default one is taken now
     * (another home's ledger, a second {@code loadgate demo}): a free port, written down so that it stays this home's
     * between starts, as the default would (job files and engine settings name it). None when the default is free. A
     * home that has its config already is never given another port: its files may name the one it has.
     */
    private static String embeddedPortLines() {
        if (portFree(DatabaseConfig.DEFAULT_EMBEDDED_PORT)) {
            return "";
        }
        int port;
        try (ServerSocket any = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = any.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port for the embedded PostgreSQL: " + e.getMessage(), e);
        }
        return """
                # Port %d was taken when this home was made: its embedded PostgreSQL has a port of its own.
                database:
                  embedded_port: %d
                """.formatted(DatabaseConfig.DEFAULT_EMBEDDED_PORT, port);
    }

    private static boolean portFree(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // The line of the operator's digest as the first start writes it; a config written by hand is left as it is.
    private static final Pattern OPERATOR_DIGEST = Pattern.compile("(?m)^( +)operator: \\[\"[0-9a-f]{64}\"]$");
    private static final Pattern VIEWER_ROLE = Pattern.compile("(?m)^ +viewer:");

    /**
     * Adds a viewer token to a home whose first start wrote only a worker and an operator token: its digest after the
     * operator's in the config, the token to the tokens file. Nothing is done when the config already names a viewer,
     * was not written by a first start, or the tokens file is gone. The tokens file is written first, whole: a crash
     * before the config leaves a viewer line without a digest, which the next start replaces.
     */
    private void addViewerToken(Path config) {
        try {
            String text = Files.readString(config);
            Matcher operator = OPERATOR_DIGEST.matcher(text);
            if (VIEWER_ROLE.matcher(text).find() || !operator.find() || !Files.exists(tokensFile())) {
                return;
            }
            String viewer = Tokens.generate();
            StringBuilder tokens = new StringBuilder();
            for (String line : Files.readAllLines(tokensFile())) {
                if (!line.startsWith("viewer=")) {
                    tokens.append(line).append('\n');
                }
            }
            tokens.append("viewer=").append(viewer).append('\n');
            Path partialTokens = home.resolve(TOKENS_FILE + ".new");
            Files.deleteIfExists(partialTokens);
            Files.createFile(partialTokens,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(partialTokens, tokens, StandardOpenOption.APPEND);
            Files.move(partialTokens, tokensFile(), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            String upgraded = text.substring(0, operator.end()) + "\n" + operator.group(1) + "viewer: [\""
                    + Tokens.digest(viewer) + "\"]" + text.substring(operator.end());
            Path partial = home.resolve(CONFIG_FILE + ".new");
            Files.writeString(partial, upgraded);
            Files.move(partial, config, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot add a viewer token to " + home + ": " + e.getMessage(), e);
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
