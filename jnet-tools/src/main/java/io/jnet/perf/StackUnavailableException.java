package io.jnet.perf;

/**
 * A stack cannot run the test at all (its path or sockets are not built yet), as opposed to a test that
 * ran and failed. The suite then reports the other stack alone.
 */
public final class StackUnavailableException extends PerfException {

    public StackUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
