package io.jnet.app;

import java.io.IOException;

/**
 * A fetch got a final response other than 200 OK. Redirects are reported, not followed; the message
 * names the {@code Location}.
 */
public class HttpStatusException extends IOException {

    private final int status;
    private final String location;

    /**
     * @param url      what was fetched
     * @param status   the response status
     * @param reason   the response's reason phrase
     * @param location the Location field of a redirect, or null
     */
    public HttpStatusException(HttpUrl url, int status, String reason, String location) {
        super(url + ": HTTP " + status + (reason.isEmpty() ? "" : " " + reason)
                + (HttpStatus.isRedirect(status)
                        ? (location == null ? ", a redirect without Location" : ", redirect to " + location)
                        + " (redirects are not followed)"
                        : ""));
        this.status = status;
        this.location = location;
    }

    /** The response status. */
    public int status() {
        return status;
    }

    /** The Location of a redirect, or null. */
    public String location() {
        return location;
    }
}
