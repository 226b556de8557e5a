package io.jnet.app;

import java.io.IOException;

/**
 * Reads request heads (RFC 9112 sections 2 and 3): optional empty lines, the request line
 * {@code method SP request-target SP HTTP-version}, then header fields, within {@link HttpLimits}.
 *
 * <p>Errors: a malformed request line or header, or a missing/duplicate {@code Host} in HTTP/1.1
 * (section 3.2) is 400; an over-long request line 414; over-long or too many header fields 431; an
 * HTTP major version other than 1 gives 505.
 */
final class HttpRequestParser {

    /** Empty lines tolerated before a request line (section 2.2 asks to ignore at least one). */
    private static final int MAX_LEADING_EMPTY_LINES = 8;

    private final HttpLimits limits;

    HttpRequestParser(HttpLimits limits) {
        this.limits = limits;
    }

    /**
     * Reads the next request head.
     *
     * @return the request, or null if the connection ended cleanly before a new request began
     * @throws HttpProtocolException for malformed or oversized input (its status is the response to send)
     * @throws java.io.EOFException  if the connection ends inside a request head
     */
    HttpRequest read(HttpInput in) throws IOException {
        String line;
        int empty = 0;
        do {
            line = in.readLine(limits.maxLineBytes(), 414);
            if (line == null) {
                return null;
            }
            if (line.isEmpty() && ++empty > MAX_LEADING_EMPTY_LINES) {
                throw new HttpProtocolException(400, "too many empty lines before the request line");
            }
        } while (line.isEmpty());

        int sp1 = line.indexOf(' ');
        int sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
        if (sp1 <= 0 || sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0) {
            throw new HttpProtocolException(400, "bad request line: " + HttpHeaders.clip(line));
        }
        String method = line.substring(0, sp1);
        String target = line.substring(sp1 + 1, sp2);
        String version = line.substring(sp2 + 1);
        if (!HttpHeaders.isToken(method)) {
            throw new HttpProtocolException(400, "bad method: " + HttpHeaders.clip(method));
        }
        int minor = parseVersion(version);
        String path = pathOf(target);
        HttpHeaders headers = HttpHeaders.read(in, limits);
        if (minor >= 1) {
            int hosts = headers.all("Host").size();
            if (hosts != 1) {
                throw new HttpProtocolException(400, hosts == 0 ? "HTTP/1.1 request without Host" : "more than one Host field");
            }
        }
        return new HttpRequest(method, target, path, minor, headers);
    }

    /** Parses {@code HTTP/d.d}; returns the minor version (capped at 1). */
    static int parseVersion(String version) throws HttpProtocolException {
        if (version.length() != 8 || !version.startsWith("HTTP/") || version.charAt(6) != '.'
                || !isDigit(version.charAt(5)) || !isDigit(version.charAt(7))) {
            throw new HttpProtocolException(400, "bad HTTP version: " + HttpHeaders.clip(version));
        }
        if (version.charAt(5) != '1') {
            throw new HttpProtocolException(505, "HTTP version not supported: " + version);
        }
        return Math.min(1, version.charAt(7) - '0');
    }

    /**
     * The path of a request-target (section 3.2): origin-form {@code /p?q} gives {@code /p};
     * absolute-form {@code http://host/p?q} gives {@code /p}; {@code *} stays {@code *}.
     */
    static String pathOf(String target) throws HttpProtocolException {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c >= 0x7F) {
                throw new HttpProtocolException(400, "bad character in request target");
            }
        }
        if (target.equals("*")) {
            return target;
        }
        String rest = target;
        if (!target.startsWith("/")) {
            int scheme = target.indexOf("://");
            if (scheme <= 0) {
                throw new HttpProtocolException(400, "bad request target: " + HttpHeaders.clip(target));
            }
            int slash = target.indexOf('/', scheme + 3);
            int query = target.indexOf('?', scheme + 3);
            if (slash < 0 || (query >= 0 && query < slash)) {
                rest = "/" + (query >= 0 ? target.substring(query) : "");
            } else {
                rest = target.substring(slash);
            }
        }
        int cut = rest.length();
        int query = rest.indexOf('?');
        int fragment = rest.indexOf('#');
        if (query >= 0) {
            cut = query;
        }
        if (fragment >= 0 && fragment < cut) {
            cut = fragment;
        }
        return rest.substring(0, cut);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
