package io.loadgate.cli;

import io.loadgate.server.ControlLoop;
import io.loadgate.server.config.LoadgateConfig;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "control-loop", mixinStandardHelpOptions = true,
        description = "Runs the ledger's background loops (dispatcher and sweeper) without the HTTP API, against "
                + "the configured database. Several may run at once, beside servers or alone.")
final class ControlLoopCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ControlLoopCommand.class);

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration (a real PostgreSQL, receiver...)")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        LoadgateConfig loaded = Configs.load(Optional.ofNullable(config));
        loaded.describe().forEach(line -> LOG.info("config {}", line));
        ControlLoop loops = ControlLoop.standalone(loaded);
        System.out.println("Loadgate control loop running: dispatcher "
                + (loops.dispatcher().isPresent() ? "pushing to dispatch.receiver_url" : "off (no dispatch.receiver_url)")
                + ", sweeper every " + loaded.recovery().sweeperInterval());
        UntilShutdown.await(loops::close);
        return 0;
    }
}
