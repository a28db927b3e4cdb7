package io.loadgate.worker.job;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where chunks are staged and how they are written. {@code root} is a URI; a bare absolute path means
 * {@code file://}. Only {@code file} and {@code hdfs} are accepted, because those are the file systems the commit
 * rule was checked on. {@code compressionLevel} is optional (null: the codec's default): the staged files are the
 * files the target serves, so it trades the load's CPU for the lake's bytes (zstd 1 against the default 3, the bench's
 * rows: the writer's CPU 9% less, files 9% larger; docs/validation.md).
 */
public record StagingSpec(URI root, Integer rowsPerChunk, Compression compression, Integer compressionLevel) {
    public static final int DEFAULT_ROWS_PER_CHUNK = 1_000_000;
    public static final Compression DEFAULT_COMPRESSION = Compression.ZSTD;

    public StagingSpec {
        root = fileSystemRoot("staging.root", root);
        rowsPerChunk = rowsPerChunk == null ? DEFAULT_ROWS_PER_CHUNK : rowsPerChunk;
        if (rowsPerChunk < 1) {
            throw new IllegalArgumentException("staging.rows_per_chunk must be positive, got " + rowsPerChunk);
        }
        compression = compression == null ? DEFAULT_COMPRESSION : compression;
        if (compressionLevel != null && !compression.hasLevel(compressionLevel)) {
            throw new IllegalArgumentException("staging.compression_level for " + compression.icebergName()
                    + " must be one of its levels (" + compression.levels() + "), got " + compressionLevel);
        }
    }

    /** Staging with the codec's default level. */
    public StagingSpec(URI root, Integer rowsPerChunk, Compression compression) {
        this(root, rowsPerChunk, compression, null);
    }

    /**
     * {@code root} with {@code file} as its scheme when it has none, checked the way staging roots are (also used
     * for a file source's root): {@code file} or {@code hdfs}, an absolute path without {@code ..}.
     */
    public static URI fileSystemRoot(String key, URI root) {
        requireNonNull(root, key + " is required");
        root = withScheme(root);
        if (!"file".equals(root.getScheme()) && !"hdfs".equals(root.getScheme())) {
            throw new IllegalArgumentException(key + " must be a file:// or hdfs:// URI, got '" + root + "'");
        }
        if (root.getPath() == null || !root.getPath().startsWith("/") || root.getPath().contains("..")) {
            throw new IllegalArgumentException(key + " must be an absolute path without '..', got '" + root + "'");
        }
        return root;
    }

    private static URI withScheme(URI root) {
        if (root.getScheme() != null) {
            return root;
        }
        try {
            return new URI("file", null, root.getPath(), null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid path: " + root, e);
        }
    }
}
