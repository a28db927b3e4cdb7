package io.loadgate.worker.target;

import io.loadgate.worker.publish.StagedFile;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

/**
 * A set of data files as one comparable line: count, records, bytes and a digest of every file's location, size,
 * record count and checksum of its bytes (where known) in location order. Two sets describe equally exactly when they
 * hold the same files with the same bytes (up to a SHA-256 collision), so the ledger can judge the target's files
 * against its own as one metric.
 */
public final class TargetFiles {
    private TargetFiles() {
    }

    public static String describe(Collection<StagedFile> files) {
        List<StagedFile> sorted = files.stream().sorted(java.util.Comparator.comparing(StagedFile::location)).toList();
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        long records = 0;
        long bytes = 0;
        for (StagedFile file : sorted) {
            records += file.recordCount();
            bytes += file.byteCount();
            digest.update((file.location() + "\n" + file.byteCount() + "\n" + file.recordCount() + "\n"
                    + (file.checksum() == null ? "" : file.checksum()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return sorted.size() + " files, " + records + " records, " + bytes + " bytes, sha256 "
                + HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    }
}
