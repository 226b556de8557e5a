package io.jnet.app;

import java.io.IOException;

/**
 * A message that breaks HTTP/1.1 syntax or framing (RFC 9112), or exceeds a {@link HttpLimits} limit.
 * Carries the status a server answers with, e.g. 400 (Bad Request), 414 (URI Too Long),
 * 431 (Request Header Fields Too Large), 501 (Not Implemented), 505 (HTTP Version Not Supported).
 */
public class HttpProtocolException extends IOException {

    private final int status;

    /**
     * @param status the response status a server sends for this error (4xx or 5xx)
     * @param message what was wrong, for the response body and logs
     */
    public HttpProtocolException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The response status for this error. */
    public int status() {
        return status;
    }
}
