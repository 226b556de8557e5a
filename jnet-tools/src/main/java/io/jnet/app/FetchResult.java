package io.jnet.app;

import java.net.InetSocketAddress;

/**
 * The outcome of one {@link HttpFetcher} exchange.
 *
 * @param url          what was fetched
 * @param remote       the address connected to
 * @param status       the final status code (1xx interim responses are skipped)
 * @param reason       the reason phrase (may be empty)
 * @param headers      the final response's header fields
 * @param bytes        body bytes received (after removing chunked framing)
 * @param sha256       SHA-256 of the body, 64 lowercase hex digits
 * @param elapsedNanos from before resolving the host to after the body's last byte, in nanoseconds
 */
public record FetchResult(HttpUrl url, InetSocketAddress remote, int status, String reason, HttpHeaders headers,
                          long bytes, String sha256, long elapsedNanos) {

    /** Whether the status is 200 OK. */
    public boolean isOk() {
        return status == 200;
    }

    /** Whether the status is a redirect (301, 302, 303, 307, 308); see {@link #location()}. */
    public boolean isRedirect() {
        return HttpStatus.isRedirect(status);
    }

    /** The Location header field, or null. */
    public String location() {
        return headers.first("Location");
    }

    /**
     * Returns this result if the status is 200.
     *
     * @throws HttpStatusException otherwise, naming the status and any redirect target
     */
    public FetchResult requireOk() throws HttpStatusException {
        if (!isOk()) {
            throw new HttpStatusException(url, status, reason, location());
        }
        return this;
    }

    /** Body throughput in bits per second over {@link #elapsedNanos()} (0 if no time elapsed). */
    public double bitsPerSecond() {
        return elapsedNanos <= 0 ? 0 : bytes * 8e9 / elapsedNanos;
    }
}
