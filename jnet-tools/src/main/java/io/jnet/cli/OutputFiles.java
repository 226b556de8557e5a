package io.jnet.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * Checks and explains the files the commands write ({@code fetch -o}, {@code --pcap}), so that a
 * mistyped path is reported as {@code cannot write /no/such/x.bin: no such directory /no/such} before
 * anything runs, rather than as a Java exception afterwards.
 */
final class OutputFiles {

    private OutputFiles() {}

    /**
     * Checks that {@code file} can be created or overwritten: its directory exists and is writable, and
     * the file itself, if present, is not a directory and is writable.
     *
     * @throws IllegalArgumentException {@code "cannot write FILE: REASON"}
     */
    static void checkWritable(Path file) {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        if (Files.isDirectory(absolute)) throw cannotWrite(file, "it is a directory");
        if (dir == null || !Files.exists(dir)) throw cannotWrite(file, "no such directory " + (dir == null ? "/" : dir));
        if (!Files.isDirectory(dir)) throw cannotWrite(file, dir + " is not a directory");
        boolean exists = Files.exists(absolute);
        if (exists ? !Files.isWritable(absolute) : !Files.isWritable(dir)) throw cannotWrite(file, "permission denied");
    }

    /** {@code "cannot write FILE: REASON"} for an error opening or writing {@code file}. */
    static String describe(Path file, IOException e) {
        return "cannot write " + file + ": " + reason(file, e);
    }

    private static String reason(Path file, IOException e) {
        Path dir = file.toAbsolutePath().getParent();
        if (e instanceof NoSuchFileException) {
            // ENOENT also comes from a directory that exists but takes no new files (/proc, /sys)
            return dir != null && Files.isDirectory(dir) ? "cannot create a file in " + dir
                    : "no such directory " + (dir == null ? "/" : dir);
        }
        if (e instanceof NotDirectoryException) return (dir == null ? "/" : dir) + " is not a directory";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static IllegalArgumentException cannotWrite(Path file, String reason) {
        return new IllegalArgumentException("cannot write " + file + ": " + reason);
    }
}
