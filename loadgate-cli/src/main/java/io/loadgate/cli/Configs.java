package io.loadgate.cli;

import io.loadgate.server.LoadgateHome;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds the configuration: the --config file, else {@code $LOADGATE_HOME/loadgate.yaml}, created on first use. */
final class Configs {
    private Configs() {
    }

    static LoadgateConfig load(Optional<Path> file) {
        if (file.isPresent()) {
            if (!Files.isRegularFile(file.get())) {
                throw new CliException("config file " + file.get() + " does not exist");
            }
            return ConfigLoader.load(file, System.getenv());
        }
        LoadgateConfig defaults = ConfigLoader.load(Optional.empty(), System.getenv());
        Path homeConfig = new LoadgateHome(defaults.home()).ensureInitialised();
        return ConfigLoader.load(Optional.of(homeConfig), System.getenv());
    }
}
