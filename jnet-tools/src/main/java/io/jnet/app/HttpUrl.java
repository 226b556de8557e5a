package io.jnet.app;

import java.util.Locale;

/**
 * An {@code http://host[:port][/path][?query]} URL as {@link HttpFetcher} uses it (RFC 9110 section 4.2.1,
 * RFC 3986 syntax). Only the http scheme is supported; user info is rejected; the fragment is dropped.
 *
 * @param host   the host: a name or IPv4 literal lowercased, or an IPv6 literal without brackets
 * @param port   the TCP port, 1..65535 (80 when the URL gives none)
 * @param target the request-target in origin-form: the path (at least {@code /}) and query
 */
public record HttpUrl(String host, int port, String target) {

    /** The default port of the http scheme. */
    public static final int DEFAULT_PORT = 80;

    /**
     * Parses {@code url}.
     *
     * @throws IllegalArgumentException naming the problem: a scheme other than http (https is named
     *                                  explicitly), a missing host, user info, a bad port, or characters
     *                                  that must be percent-encoded
     */
    public static HttpUrl parse(String url) {
        if (url == null || url.isEmpty()) {
            throw bad(url, "empty URL");
        }
        int schemeEnd = url.indexOf("://");
        if (schemeEnd < 0) {
            throw bad(url, "expected http://host[:port]/path");
        }
        String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        if (scheme.equals("https")) {
            throw bad(url, "https is not supported (no TLS); use http://");
        }
        if (!scheme.equals("http")) {
            throw bad(url, "only the http scheme is supported, not " + scheme);
        }
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c <= ' ' || c >= 0x7F) {
                throw bad(url, "spaces, control and non-ASCII characters must be percent-encoded");
            }
        }
        String rest = url.substring(schemeEnd + 3);
        int fragment = rest.indexOf('#');
        if (fragment >= 0) {
            rest = rest.substring(0, fragment);
        }
        int authorityEnd = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c == '/' || c == '?') {
                authorityEnd = i;
                break;
            }
        }
        String authority = rest.substring(0, authorityEnd);
        String target = rest.substring(authorityEnd);
        if (target.isEmpty() || target.startsWith("?")) {
            target = "/" + target;
        }
        if (authority.indexOf('@') >= 0) {
            throw bad(url, "user information (user@host) is not supported");
        }
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw bad(url, "unterminated IPv6 literal");
            }
            host = authority.substring(1, close).toLowerCase(Locale.ROOT);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw bad(url, "unexpected text after the IPv6 literal");
                }
                portText = after.substring(1);
            }
            if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
                throw bad(url, "bad IPv6 literal");
            }
        } else {
            int colon = authority.lastIndexOf(':');
            host = (colon < 0 ? authority : authority.substring(0, colon)).toLowerCase(Locale.ROOT);
            portText = colon < 0 ? null : authority.substring(colon + 1);
            if (!host.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')) {
                throw bad(url, "bad host name '" + host + "'");
            }
        }
        if (host.isEmpty()) {
            throw bad(url, "no host");
        }
        int port = DEFAULT_PORT;
        if (portText != null && !portText.isEmpty()) {
            if (portText.length() > 5 || !portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw bad(url, "bad port '" + portText + "'");
            }
            port = Integer.parseInt(portText);
            if (port < 1 || port > 65535) {
                throw bad(url, "port out of range 1..65535: " + port);
            }
        }
        return new HttpUrl(host, port, target);
    }

    private static IllegalArgumentException bad(String url, String why) {
        return new IllegalArgumentException("bad URL '" + url + "': " + why);
    }

    /** Whether the host is an IPv6 literal. */
    public boolean isIpv6Literal() {
        return host.indexOf(':') >= 0;
    }

    /** The value of the Host header: host (bracketed if IPv6) and {@code :port} unless the port is 80. */
    public String authority() {
        String h = isIpv6Literal() ? "[" + host + "]" : host;
        return port == DEFAULT_PORT ? h : h + ":" + port;
    }

    @Override
    public String toString() {
        return "http://" + authority() + target;
    }
}
