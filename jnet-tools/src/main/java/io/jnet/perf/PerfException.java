package io.jnet.perf;

/** A test run failed: a socket error, a byte count mismatch, a peer that never finished. */
public class PerfException extends Exception {

    public PerfException(String message) {
        super(message);
    }

    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}
