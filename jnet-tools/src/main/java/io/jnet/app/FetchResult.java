package io.jnet.app;

/**
 * The outcome of one {@link JnetFetch}.
 *
 * @param url          what was fetched
 * @param status       the final status code
 * @param reason       the standard reason phrase of the status ({@link HttpStatus#reason}); the JDK's client does
 *                     not report the server's
 * @param bytes        body bytes received (after removing chunked framing)
 * @param sha256       SHA-256 of the body, 64 lowercase hex digits
 * @param elapsedNanos from before connecting to after the body's last byte, in nanoseconds
 */
public record FetchResult(String url, int status, String reason, long bytes, String sha256, long elapsedNanos) {

    /** Body throughput in bits per second over {@link #elapsedNanos()} (0 if no time elapsed). */
    public double bitsPerSecond() {
        return elapsedNanos <= 0 ? 0 : bytes * 8e9 / elapsedNanos;
    }
}
