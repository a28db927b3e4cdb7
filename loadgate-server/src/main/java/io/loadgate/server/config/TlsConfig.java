package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/** HTTPS for the ledger API: a PKCS#12 or JKS key store and its password ({@code server.tls.*}). */
public record TlsConfig(Path keystore, String password) {
    public TlsConfig {
        requireNonNull(keystore, "keystore is null");
        requireNonNull(password, "password is null");
    }

    @Override
    public String toString() {
        return "TlsConfig[keystore=" + keystore + ", password=" + Masking.secret(password) + "]";
    }
}
