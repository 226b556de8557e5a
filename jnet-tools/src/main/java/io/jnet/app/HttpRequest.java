package io.jnet.app;

/**
 * The head of one HTTP/1.x request (RFC 9112 section 3).
 *
 * @param method       the method token, case-sensitive ({@code GET}, {@code PUT}, ...)
 * @param target       the request-target as sent (origin-form {@code /path?query}, absolute-form, or {@code *})
 * @param path         the target's path without query, e.g. {@code /bytes/1024}; {@code *} for asterisk-form
 * @param minorVersion 0 for HTTP/1.0, 1 for HTTP/1.1 (higher 1.x minors are treated as 1.1)
 * @param headers      the header fields
 */
public record HttpRequest(String method, String target, String path, int minorVersion, HttpHeaders headers) {

    /** The version as written in messages, {@code HTTP/1.0} or {@code HTTP/1.1}. */
    public String version() {
        return "HTTP/1." + minorVersion;
    }
}
