package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.nonBlank;

/**
 * Where the ledger API listens ({@code server.*}). {@code tls} is null for plain HTTP. Port 0 asks the operating
 * system for a free port, which tests use.
 */
public record ServerConfig(String host, int port, TlsConfig tls) {
    public ServerConfig {
        nonBlank(host, "server.host");
        if (port < 0 || port > 65535) {
            throw new ConfigException("server.port", "server.port must be between 0 and 65535, got " + port);
        }
    }

    static ServerConfig defaults() {
        return new ServerConfig("0.0.0.0", 8080, null);
    }
}
