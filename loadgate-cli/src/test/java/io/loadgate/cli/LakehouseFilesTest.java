package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.LoadgateHome;
import io.loadgate.server.LoadgateServer;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.config.ServerConfig;
import io.loadgate.worker.staging.ForcedFiles;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's lakehouse catalog, as the CLI starts it, writes an engine's commits through the workers' FileIO: the
 * metadata file a commit through the Iceberg REST catalog makes the table point at is on the disk, with the directory
 * entry naming it, before the catalog's pointer moves (docs/reliability.md, "What a crash of the machine leaves").
 */
@Timeout(180)
class LakehouseFilesTest {
    private static final TableIdentifier EVENTS = TableIdentifier.of("lake", "events");

    @TempDir
    Path home;

    @Test
    void anEnginesCommitThroughTheRestCatalogForcesTheMetadataFileItPointsAt() throws Exception {
        Map<String, String> env = Map.of("LOADGATE_HOME", home.toString(), "LOADGATE_DATABASE__EMBEDDED_PORT", "0");
        Path configFile = new LoadgateHome(home).ensureInitialised();
        LoadgateConfig configured = ConfigLoader.load(Optional.of(configFile), env);
        LoadgateConfig config = new LoadgateConfig(new ServerConfig("127.0.0.1", 0, null), configured.database(),
                configured.auth(), configured.recovery(), configured.dispatch(), configured.cleanup(), home);
        try (LoadgateServer server = LoadgateServer.start(config, LocalLoadgate.LAKEHOUSE_IO);
             RESTCatalog engine = new RESTCatalog()) {
            String token = Files.readAllLines(new LoadgateHome(home).tokensFile()).stream()
                    .filter(l -> l.startsWith("worker=")).findFirst().orElseThrow().substring("worker=".length());
            engine.setConf(new Configuration());
            engine.initialize("lake", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg",
                    "token", token));
            engine.createNamespace(Namespace.of("lake"));

            List<String> created = ForcedFiles.during(() -> engine.createTable(EVENTS,
                    new Schema(Types.NestedField.required(1, "id", Types.LongType.get()))));
            Path first = metadataFile(engine.loadTable(EVENTS));
            assertThat(created).as("the new table's metadata file and the directories its creation made")
                    .contains(first.toString(), first.getParent().toString(), first.getParent().getParent().toString());

            List<String> committed = ForcedFiles.during(() ->
                    engine.loadTable(EVENTS).updateProperties().set("owner", "analytics").commit());
            Path second = metadataFile(engine.loadTable(EVENTS));
            assertThat(second).isNotEqualTo(first);
            assertThat(committed).as("the commit's metadata file, then its directory")
                    .containsSubsequence(second.toString(), second.getParent().toString());
        }
    }

    private static Path metadataFile(Table table) {
        String location = ((HasTableOperations) table).operations().current().metadataFileLocation();
        return location.contains(":") ? Path.of(URI.create(location).getPath()) : Path.of(location);
    }
}
