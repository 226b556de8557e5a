package io.jnet.testing;

import java.io.IOException;
import java.util.List;

/**
 * The outcome of a command run to completion (or until its timeout).
 *
 * @param command the command line as run
 * @param exitCode the exit status, or -1 when the command was killed at its timeout
 * @param stdout everything written to standard output (UTF-8)
 * @param stderr everything written to standard error (UTF-8)
 * @param timedOut true when the command was killed because it ran past its timeout
 */
public record CommandResult(List<String> command, int exitCode, String stdout, String stderr, boolean timedOut) {

    /** True when the command finished with exit status 0. */
    public boolean ok() {
        return !timedOut && exitCode == 0;
    }

    /**
     * Returns this result when {@link #ok()}.
     *
     * @throws IOException naming the command, its status and its output otherwise
     */
    public CommandResult checkSuccess() throws IOException {
        if (!ok()) throw new IOException(describe());
        return this;
    }

    /** The command, its status and output, for failure messages. */
    public String describe() {
        return String.join(" ", command) + (timedOut ? " timed out" : " exited " + exitCode)
                + (stdout.isBlank() ? "" : "\nstdout: " + stdout.strip())
                + (stderr.isBlank() ? "" : "\nstderr: " + stderr.strip());
    }
}
