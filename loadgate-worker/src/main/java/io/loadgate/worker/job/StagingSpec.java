package io.loadgate.worker.job;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where chunks are staged. {@code root} is a URI; a bare absolute path means {@code file://}. Only {@code file}
 * and {@code hdfs} are accepted, because those are the file systems the commit rule was checked on.
 */
public record StagingSpec(URI root, Integer rowsPerChunk, Compression compression) {
    public static final int DEFAULT_ROWS_PER_CHUNK = 1_000_000;
    public static final Compression DEFAULT_COMPRESSION = Compression.ZSTD;

    public StagingSpec {
        root = fileSystemRoot("staging.root", root);
        rowsPerChunk = rowsPerChunk == null ? DEFAULT_ROWS_PER_CHUNK : rowsPerChunk;
        if (rowsPerChunk < 1) {
            throw new IllegalArgumentException("staging.rows_per_chunk must be positive, got " + rowsPerChunk);
        }
        compression = compression == null ? DEFAULT_COMPRESSION : compression;
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
