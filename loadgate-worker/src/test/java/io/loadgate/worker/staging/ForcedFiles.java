package io.loadgate.worker.staging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

/** The files a test's code forced to the disk, by JFR's {@code jdk.FileForce} events: the JVM's record of each fsync. */
public final class ForcedFiles {
    private ForcedFiles() {
    }

    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /** The paths forced while {@code body} ran, in order, by any thread of this JVM. */
    public static List<String> during(Body body) throws Exception {
        Path dump = Files.createTempFile("forced", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable("jdk.FileForce").withThreshold(Duration.ZERO);
                recording.start();
                body.run();
                recording.stop();
                recording.dump(dump);
            }
            return RecordingFile.readAllEvents(dump).stream()
                    .filter(event -> event.getEventType().getName().equals("jdk.FileForce"))
                    .map(event -> event.getString("path")).toList();
        } finally {
            Files.delete(dump);
        }
    }
}
