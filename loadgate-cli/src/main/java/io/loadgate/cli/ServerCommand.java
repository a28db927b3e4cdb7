package io.loadgate.cli;

import io.loadgate.server.LoadgateHome;
import io.loadgate.server.LoadgateServer;
import io.loadgate.server.config.LoadgateConfig;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Runs the ledger: the HTTP API and its background loops. Without --config it uses an "
                + "embedded PostgreSQL under $LOADGATE_HOME (default ~/.loadgate) and creates tokens on first start.")
final class ServerCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ServerCommand.class);

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration (a real PostgreSQL, tokens...)")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        LoadgateConfig loaded = Configs.load(Optional.ofNullable(config));
        loaded.describe().forEach(line -> LOG.info("config {}", line));
        LoadgateServer server = LoadgateServer.start(loaded, LocalLoadgate.LAKEHOUSE_IO);
        String bound = loaded.server().host();
        // A wildcard address is every interface: say so, and give the URL a client on this machine can use.
        boolean everyInterface = bound.equals("0.0.0.0") || bound.equals("::") || bound.equals("[::]");
        String host = everyInterface ? "127.0.0.1" : bound.contains(":") && !bound.startsWith("[") ? "[" + bound + "]"
                : bound;
        String url = (loaded.server().tls() == null ? "http" : "https") + "://" + host + ":" + server.port();
        System.out.println("Loadgate ledger listening on " + bound + " port " + server.port()
                + (everyInterface ? " (every interface)" : ""));
        System.out.println("API:       " + url + "/v1");
        System.out.println("Dashboard: " + url + "/dashboard");
        LoadgateHome home = new LoadgateHome(loaded.home());
        if (config == null) {
            System.out.println("Tokens (worker, operator) are in " + home.tokensFile());
        }
        System.out.println("Ledger database: " + server.jdbcUrl());
        System.out.println("Iceberg REST catalog (its lakehouse): " + url + "/iceberg");
        long pid = ProcessHandle.current().pid();
        home.recordServer(new LoadgateHome.RunningServer(pid, url, server.embedded().map(e -> e.port()).orElse(0)));
        UntilShutdown.await(() -> {
            home.forgetServer(pid);
            server.close();
        });
        return 0;
    }
}
