package io.loadgate.worker.cleanup;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Locale;
import org.apache.hadoop.fs.Path;

/**
 * One spelling per file location, so that a table's reference and a directory listing can be compared: the
 * ledger and the table hold locations as the staging writer printed them ({@code file:///x}, {@code /x},
 * {@code hdfs://nn:8020/x}), while a Hadoop listing prints {@code file:/x}. Every location is read the way
 * Hadoop (and Iceberg's {@code HadoopFileIO}) read it — a {@link Path} string, not an escaped URI — and
 * qualified against the default file system as Hadoop would open it.
 */
final class Locations {
    private final URI defaultFileSystem;

    Locations(URI defaultFileSystem) {
        this.defaultFileSystem = requireNonNull(defaultFileSystem, "defaultFileSystem is null");
    }

    /** {@code scheme://authority/path}, scheme and authority lower case, no empty or {@code .} segments. */
    String key(String location) {
        requireNonNull(location, "location is null");
        URI uri = new Path(location).toUri();
        String scheme = uri.getScheme();
        String authority = uri.getAuthority();
        if (scheme == null) {
            scheme = defaultFileSystem.getScheme();
            authority = defaultFileSystem.getAuthority();
        } else if (authority == null && scheme.equalsIgnoreCase(defaultFileSystem.getScheme())) {
            // hdfs:///x means the default name node, as Hadoop opens it.
            authority = defaultFileSystem.getAuthority();
        }
        StringBuilder path = new StringBuilder();
        for (String segment : uri.getPath().split("/")) {
            if (segment.equals("..")) {
                throw new IllegalArgumentException("location contains ..: " + location);
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                path.append('/').append(segment);
            }
        }
        return (scheme == null ? "" : scheme.toLowerCase(Locale.ROOT)) + "://"
                + (authority == null ? "" : authority.toLowerCase(Locale.ROOT))
                + (path.length() == 0 ? "/" : path.toString());
    }

    /** True when {@code location} lies strictly below {@code directory}, whole segments compared. */
    boolean isBelow(String location, String directory) {
        String dir = key(directory);
        return key(location).startsWith(dir.endsWith("/") ? dir : dir + "/");
    }
}
