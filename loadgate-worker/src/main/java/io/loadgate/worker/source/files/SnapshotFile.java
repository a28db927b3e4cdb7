package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * One file as the planner saw it: its path under the source root ({@code d_20261130-1400/part-0.gz}), its length
 * and modification time, and the lines counted in it (the rows it must give, header excluded). A reader that finds
 * another length or time reads different data and must fail instead.
 */
public record SnapshotFile(String path, long length, long modificationTime, long lines) {
    public SnapshotFile {
        requireNonNull(path, "path is null");
        if (path.isEmpty() || path.startsWith("/") || path.contains("..")) {
            throw new IllegalArgumentException("a snapshot file's path is relative to the root, got '" + path + "'");
        }
        if (length < 0 || lines < 0) {
            throw new IllegalArgumentException("negative length or lines for " + path);
        }
    }

    /**
     * A partition's files as its sourceRef: {@code path,length,mtime,lines} joined by {@code ;}, with {@code %},
     * {@code ,} and {@code ;} in paths percent-escaped. Text, so an operator reads it in the run's manifest.
     */
    public static String encode(List<SnapshotFile> files) {
        StringBuilder text = new StringBuilder();
        for (SnapshotFile file : files) {
            if (text.length() > 0) {
                text.append(';');
            }
            text.append(file.encoded());
        }
        return text.toString();
    }

    /** The length {@link #encode} gives this file, its separator included. */
    int encodedLength() {
        return encoded().length() + 1;
    }

    public static List<SnapshotFile> decode(String sourceRef) {
        List<SnapshotFile> files = new ArrayList<>();
        if (sourceRef.isEmpty()) {
            return files;
        }
        for (String item : sourceRef.split(";", -1)) {
            String[] fields = item.split(",", -1);
            if (fields.length != 4) {
                throw new IllegalArgumentException("not a file source partition: '" + sourceRef + "'");
            }
            files.add(new SnapshotFile(unescape(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2]),
                    Long.parseLong(fields[3])));
        }
        return List.copyOf(files);
    }

    private String encoded() {
        return path.replace("%", "%25").replace(",", "%2C").replace(";", "%3B") + "," + length + ","
                + modificationTime + "," + lines;
    }

    private static String unescape(String path) {
        return path.replace("%3B", ";").replace("%2C", ",").replace("%25", "%");
    }
}
