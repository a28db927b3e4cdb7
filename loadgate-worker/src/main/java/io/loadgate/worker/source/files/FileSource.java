package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileColumnSpec;
import io.loadgate.worker.job.FilesSpec;
import io.loadgate.worker.job.TransformStep;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.source.SplitStats;
import io.loadgate.worker.staging.StagingFileSystems;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.io.compress.ZStandardCodec;

/**
 * File drops in Camus directories as a {@link Source}. The snapshot of a business key is its listing: every due
 * directory of the key, every file in it with its length, modification time and line count, balanced into
 * partitions by bytes and written into each partition's sourceRef. Files are immutable once listed: a reader that
 * finds a file changed (another length or time, fewer or more lines, gone) fails with
 * {@link SnapshotExpiredException} rather than read other data, and a reissued partition reads the same files
 * into the same rows. Every line is a row or a rejected line (kept raw with its reason).
 *
 * <p>Thread-safe: each reader opens its own streams.
 */
public final class FileSource implements Source {
    /** The ledger's limit on a partition's sourceRef; a key whose files do not fit gets more partitions. */
    static final int MAX_SOURCE_REF = 4000;

    private final FilesSpec spec;
    private final Configuration hadoop;
    private final Clock clock;
    private final List<FileColumnSpec> columnSpecs;
    private final KeyPartitionColumns derived;
    private final List<SourceColumn> columns;
    private final TransformStep.Mapper mapper;

    public FileSource(FilesSpec spec, Configuration hadoop, Clock clock) {
        this(spec, null, hadoop, clock);
    }

    /** @param mapper the job's mapper ({@code transform.steps[0]}), or null: its rows are then what is parsed */
    public FileSource(FilesSpec spec, TransformStep.Mapper mapper, Configuration hadoop, Clock clock) {
        this.spec = requireNonNull(spec, "spec is null");
        this.mapper = mapper;
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.columnSpecs = spec.columnsFile() == null ? spec.columns() : readColumnsFile(spec.columnsFile(), hadoop);
        this.derived = KeyPartitionColumns.of(spec.groupBy(), spec.partitionColumns());
        List<SourceColumn> all = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (SourceColumn column : concat(columnSpecs.stream().map(c -> {
            try {
                return ColumnParser.of(c).column();
            } catch (IllegalArgumentException e) {
                throw new SourceException(e.getMessage(), e);
            }
        }).toList(), derived.columns())) {
            if (!names.add(column.name().toLowerCase(Locale.ROOT))) {
                throw new SourceException("column " + column.name() + " is declared twice (a file column may not take"
                        + " the name of a derived partition column, source.files.partition_columns)");
            }
            all.add(column);
        }
        this.columns = List.copyOf(all);
        try {
            parser();
        } catch (IllegalArgumentException e) {
            throw new SourceException(e.getMessage(), e);
        }
    }

    /** The parser of the files' lines, or of the mapper's rows when the job has one. */
    private LineParser parser() {
        return mapper == null ? LineParser.of(spec, columnSpecs) : LineParser.ofMapper(mapper.output(), columnSpecs);
    }

    /** The key derivation this source adds to its rows (a Hive-style target partitions by it). */
    public KeyPartitionColumns partitionColumns() {
        return derived;
    }

    @Override
    public String canonicalKey(String businessKey) {
        return FileKey.parse(spec.groupBy(), businessKey).toString();
    }

    @Override
    public List<SourceColumn> columns() {
        return columns;
    }

    @Override
    public SnapshotHolder openSnapshot(String businessKey) {
        FileKey key = FileKey.parse(spec.groupBy(), businessKey);
        List<SnapshotFile> files = list(key);
        List<List<SnapshotFile>> bins = balance(files, spec.partitions());
        List<Partition> partitions = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < bins.size(); i++) {
            long lines = bins.get(i).stream().mapToLong(SnapshotFile::lines).sum();
            partitions.add(Partition.ofFiles(String.format("%04d", i), SnapshotFile.encode(bins.get(i)), lines));
            total += lines;
        }
        SourcePlan plan = new SourcePlan(snapshotRef(partitions), columns, new SplitStats(total, 0, null, null),
                partitions, java.util.Optional.of(new MetricSet(Map.of(MetricNames.COUNT, Long.toString(total)))));
        return new SnapshotHolder() {
            @Override
            public SourcePlan plan() {
                return plan;
            }

            @Override
            public boolean isAlive() {
                // Nothing is held: the listing is the snapshot, and each reader checks its files against it.
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey) {
        if (partition.sourceRef() == null) {
            throw new SourceException("partition " + partition.partitionId() + " names no files (no sourceRef)");
        }
        FileKey key = FileKey.parse(spec.groupBy(), businessKey);
        return new FileRows(this, new Path(spec.root()), SnapshotFile.decode(partition.sourceRef()), parser(), columns,
                derived.values(key), mapper, partition.partitionId());
    }

    /**
     * Reads one file outside any snapshot and directory, as {@code loadgate check} does with a sample: the same
     * parsing and rejects, the derived columns from {@code businessKey}, or null without one.
     */
    public PartitionRows readSample(java.net.URI file, String businessKey) {
        Path path = new Path(file);
        FileStatus status;
        try {
            status = path.getFileSystem(hadoop).getFileStatus(path);
        } catch (IOException e) {
            throw new SourceException("cannot read the sample " + file + ": " + e.getMessage(), e);
        }
        List<Object> constants = businessKey == null
                ? java.util.Collections.nCopies(derived.columns().size(), null)
                : derived.values(FileKey.parse(spec.groupBy(), businessKey));
        long lines = countLines(path);
        SnapshotFile sample = new SnapshotFile(path.getName(), status.getLen(), status.getModificationTime(), lines);
        return new FileRows(this, path.getParent(), List.of(sample), parser(), columns, constants, mapper, "sample");
    }

    /** The due directories of {@code key}, oldest first, with the files in each. */
    public List<SourceDirectory> directories(FileKey key) {
        return directories().stream().filter(d -> key.contains(d.time())).toList();
    }

    /** Every due directory under the root, oldest first, with its files. */
    public List<SourceDirectory> directories() {
        FileSystem fs = fileSystem();
        LocalDateTime dueBefore = LocalDateTime.now(clock.withZone(spec.zone())).minus(spec.delay());
        List<SourceDirectory> directories = new ArrayList<>();
        try {
            for (FileStatus status : fs.listStatus(new Path(spec.root()))) {
                Optional<LocalDateTime> time = CamusLayout.time(status.getPath().getName());
                // A directory is due once its time is older than now minus the delay (Thrive's
                // folder_processing_delay): before that, Camus may still be writing into it.
                if (status.isDirectory() && time.isPresent() && !time.get().isAfter(dueBefore)) {
                    directories.add(new SourceDirectory(status.getPath().getName(), time.get(), files(fs, status.getPath())));
                }
            }
        } catch (FileNotFoundException e) {
            throw new SourceException("source.files.root " + spec.root() + " does not exist", e);
        } catch (IOException e) {
            throw new SourceException("listing " + spec.root() + " failed: " + e.getMessage(), e);
        }
        directories.sort(Comparator.comparing(SourceDirectory::time));
        return List.copyOf(directories);
    }

    /** A due directory: its name, its time, and its files' names (hidden ones, {@code _*} and {@code .*}, left out). */
    public record SourceDirectory(String name, LocalDateTime time, List<FileStatus> files) {
        public SourceDirectory {
            requireNonNull(name, "name is null");
            requireNonNull(time, "time is null");
            files = List.copyOf(files);
        }
    }

    private static List<FileStatus> files(FileSystem fs, Path directory) throws IOException {
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus file : fs.listStatus(directory)) {
            String name = file.getPath().getName();
            // Hadoop's own rule for inputs: _SUCCESS, _temporary, .crc and in-flight .tmp files are not data.
            if (file.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                files.add(file);
            }
        }
        files.sort(Comparator.comparing(f -> f.getPath().getName()));
        return files;
    }

    private List<SnapshotFile> list(FileKey key) {
        List<SnapshotFile> files = new ArrayList<>();
        for (SourceDirectory directory : directories(key)) {
            for (FileStatus status : directory.files()) {
                String path = directory.name() + "/" + status.getPath().getName();
                files.add(new SnapshotFile(path, status.getLen(), status.getModificationTime(),
                        countLines(status.getPath())));
            }
        }
        return files;
    }

    private long countLines(Path path) {
        try (InputStream in = open(path)) {
            long lines = LineReader.count(in);
            return spec.header() && lines > 0 ? lines - 1 : lines;
        } catch (IOException e) {
            throw new SourceException("counting the lines of " + path + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Files into at least {@code wanted} bins (fewer when there are fewer files) of about equal bytes: largest first,
     * each into the lightest bin, ties broken by path, so the same listing always gives the same partitions. More
     * bins when one's sourceRef would not fit the ledger's limit.
     */
    static List<List<SnapshotFile>> balance(List<SnapshotFile> files, int wanted) {
        if (files.isEmpty()) {
            // An empty key still has one partition: a manifest holds at least one.
            return List.of(List.of());
        }
        List<SnapshotFile> bySize = new ArrayList<>(files);
        bySize.sort(Comparator.comparingLong(SnapshotFile::length).reversed().thenComparing(SnapshotFile::path));
        for (int count = Math.min(wanted, files.size()); ; count++) {
            List<List<SnapshotFile>> bins = new ArrayList<>();
            long[] bytes = new long[count];
            int[] refLength = new int[count];
            for (int i = 0; i < count; i++) {
                bins.add(new ArrayList<>());
            }
            boolean fits = true;
            for (SnapshotFile file : bySize) {
                int lightest = 0;
                for (int i = 1; i < count; i++) {
                    if (bytes[i] < bytes[lightest]) {
                        lightest = i;
                    }
                }
                bins.get(lightest).add(file);
                bytes[lightest] += file.length();
                refLength[lightest] += file.encodedLength();
                fits &= refLength[lightest] <= MAX_SOURCE_REF + 1;
            }
            if (fits || count >= files.size()) {
                if (!fits) {
                    throw new SourceException("a file's path is too long for the ledger's sourceRef ("
                            + MAX_SOURCE_REF + " characters)");
                }
                bins.forEach(bin -> bin.sort(Comparator.comparing(SnapshotFile::path)));
                return bins.stream().map(List::copyOf).toList();
            }
        }
    }

    private static String snapshotRef(List<Partition> partitions) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Partition partition : partitions) {
                digest.update(partition.sourceRef().getBytes(StandardCharsets.UTF_8));
                digest.update((byte) '\n');
            }
            return "files:sha256:" + HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    FileSystem fileSystem() {
        return StagingFileSystems.forUri(spec.root(), hadoop);
    }

    /** The decompressed bytes of {@code path}, decompressed by its extension ({@code .gz}, {@code .bz2}, ...). */
    InputStream open(Path path) throws IOException {
        FileSystem fs = StagingFileSystems.forUri(path.toUri(), hadoop);
        CompressionCodec codec = new CompressionCodecFactory(hadoop).getCodec(path);
        InputStream raw = fs.open(path);
        if (codec == null) {
            return raw;
        }
        try {
            if (codec instanceof ZStandardCodec && !ZStandardCodec.isNativeCodeLoaded()) {
                // Hadoop's codec needs its native library, absent from most hosts; what it writes (as Camus does
                // through it, and the zstd tool) are plain Zstandard frames, which zstd-jni (Parquet's) reads.
                return new com.github.luben.zstd.ZstdInputStream(raw);
            }
            // Snappy goes through snappy-java in Hadoop 3.3 and later: no native library either.
            return codec.createInputStream(raw);
        } catch (RuntimeException | IOException | LinkageError e) {
            raw.close();
            // Planning counts every file's lines through here: a codec this host cannot read refuses the key before
            // a run exists, never midway through one.
            throw new SourceException("cannot decompress " + path + " with " + codec.getClass().getSimpleName()
                    + ": " + e.getMessage(), e);
        }
    }

    /** Fails unless {@code file}, under {@code base}, is as the snapshot listed it. */
    void verify(Path base, SnapshotFile file) {
        FileStatus status;
        try {
            status = StagingFileSystems.forUri(base.toUri(), hadoop).getFileStatus(new Path(base, file.path()));
        } catch (FileNotFoundException e) {
            throw new SnapshotExpiredException("file " + file.path() + " of the snapshot is gone", e);
        } catch (IOException e) {
            throw new SourceException("reading the status of " + file.path() + " failed: " + e.getMessage(), e);
        }
        if (status.getLen() != file.length() || status.getModificationTime() != file.modificationTime()) {
            throw new SnapshotExpiredException("file " + file.path() + " changed since the snapshot: length "
                    + file.length() + " -> " + status.getLen() + ", modified " + file.modificationTime() + " -> "
                    + status.getModificationTime() + "; load the key again to read it as it is now", null);
        }
    }

    /** Thrive's {@code hive_columns.csv}: one {@code name type} per line; blank lines and {@code #} comments skipped. */
    static List<FileColumnSpec> readColumnsFile(String location, Configuration hadoop) {
        Path path = new Path(location);
        List<FileColumnSpec> columns = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(
                path.getFileSystem(hadoop).open(path), StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                String text = line.strip();
                if (text.isEmpty() || text.startsWith("#")) {
                    continue;
                }
                String[] parts = text.split("\\s+", 2);
                if (parts.length != 2) {
                    throw new SourceException(location + ":" + number + ": expected 'name type', got '" + text + "'");
                }
                try {
                    columns.add(new FileColumnSpec(parts[0], parts[1], null, null));
                } catch (IllegalArgumentException e) {
                    throw new SourceException(location + ":" + number + ": " + e.getMessage(), e);
                }
            }
        } catch (FileNotFoundException e) {
            throw new SourceException("source.files.columns_file " + location + " does not exist", e);
        } catch (IOException e) {
            throw new SourceException("reading source.files.columns_file " + location + " failed: " + e.getMessage(), e);
        }
        if (columns.isEmpty()) {
            throw new SourceException("source.files.columns_file " + location + " declares no column");
        }
        return List.copyOf(columns);
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        List<T> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }
}
