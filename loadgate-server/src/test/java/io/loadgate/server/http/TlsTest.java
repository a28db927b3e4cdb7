package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.testing.TestLedger;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.FileInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** server.tls: the API on HTTPS only, with a key store the operator provides. */
class TlsTest {
    @Test
    void servesHttpsWithTheConfiguredKeyStoreAndNoPlainHttp(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "loadgate", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "secret1", "-keypass", "secret1")
                .redirectErrorStream(true).start();
        assertThat(keytool.waitFor()).as(new String(keytool.getInputStream().readAllBytes())).isZero();

        try (TestLedger ledger = new TestLedger();
             ApiServer https = ApiServer.start(new ApiServer.Wiring(ledger.ledger, new Authenticator(Map.of()),
                     new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), "127.0.0.1", 0,
                     new ApiServer.Tls(keystore, "secret1"))) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (var in = new FileInputStream(keystore.toFile())) {
                trust.load(in, "secret1".toCharArray());
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(context).build();
            var response = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + https.port()
                    + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            int plainStatus;
            try {
                plainStatus = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + https.port() + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
            } catch (java.io.IOException refused) {
                plainStatus = -1;
            }
            assertThat(plainStatus).as("plain HTTP on the HTTPS port").isNotEqualTo(200);
        }
        assertThat(Files.exists(keystore)).isTrue();
    }
}
