package io.jnet.app;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The header (or trailer) fields of one HTTP message in arrival order. Names compare
 * case-insensitively (RFC 9110 section 5.1); values are stored with surrounding whitespace removed.
 */
public final class HttpHeaders {

    private final List<Map.Entry<String, String>> fields = new ArrayList<>();

    /** Appends a field. */
    public void add(String name, String value) {
        fields.add(Map.entry(name, value));
    }

    /** The first value of {@code name}, or null if absent. */
    public String first(String name) {
        for (Map.Entry<String, String> field : fields) {
            if (field.getKey().equalsIgnoreCase(name)) {
                return field.getValue();
            }
        }
        return null;
    }

    /** Every value of {@code name} in order (empty if absent). */
    public List<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> field : fields) {
            if (field.getKey().equalsIgnoreCase(name)) {
                values.add(field.getValue());
            }
        }
        return values;
    }

    /** Whether a field named {@code name} is present. */
    public boolean contains(String name) {
        return first(name) != null;
    }

    /**
     * The comma-separated list elements of every {@code name} field, trimmed, lowercased, empty elements
     * dropped (RFC 9110 section 5.6.1), e.g. {@code Connection: keep-alive, Upgrade} gives
     * {@code [keep-alive, upgrade]}.
     */
    public List<String> tokens(String name) {
        List<String> tokens = new ArrayList<>();
        for (String value : all(name)) {
            for (String element : value.split(",")) {
                String token = element.strip().toLowerCase(Locale.ROOT);
                if (!token.isEmpty()) {
                    tokens.add(token);
                }
            }
        }
        return tokens;
    }

    /** All fields in arrival order (unmodifiable). */
    public List<Map.Entry<String, String>> fields() {
        return Collections.unmodifiableList(fields);
    }

    /** Number of fields. */
    public int size() {
        return fields.size();
    }

    @Override
    public String toString() {
        return fields.toString();
    }

    /**
     * Reads field lines up to and including the empty line that ends a message head (RFC 9112 section 5).
     * Obsolete line folding, a missing colon, whitespace before the colon, a name that is not a token,
     * or a NUL in a value are rejected with 400; too long lines or too many fields with 431.
     *
     * @throws EOFException          if the stream ends before the empty line
     * @throws HttpProtocolException on malformed or oversized fields
     */
    static HttpHeaders read(HttpInput in, HttpLimits limits) throws IOException {
        HttpHeaders headers = new HttpHeaders();
        while (true) {
            String line = in.readLine(limits.maxLineBytes(), 431);
            if (line == null) {
                throw new EOFException("connection closed inside a message head");
            }
            if (line.isEmpty()) {
                return headers;
            }
            if (headers.size() == limits.maxHeaders()) {
                throw new HttpProtocolException(431, "more than " + limits.maxHeaders() + " header fields");
            }
            headers.fields.add(parseField(line));
        }
    }

    private static Map.Entry<String, String> parseField(String line) throws HttpProtocolException {
        char first = line.charAt(0);
        if (first == ' ' || first == '\t') {
            throw new HttpProtocolException(400, "obsolete line folding in header field");
        }
        int colon = line.indexOf(':');
        if (colon <= 0) {
            throw new HttpProtocolException(400, "header field without a name and colon: " + clip(line));
        }
        String name = line.substring(0, colon);
        if (!isToken(name)) {
            throw new HttpProtocolException(400, "bad header field name: " + clip(name));
        }
        String value = line.substring(colon + 1).strip();
        if (value.indexOf('\0') >= 0) {
            throw new HttpProtocolException(400, "NUL in header field " + name);
        }
        return Map.entry(name, value);
    }

    /** Whether {@code s} is a non-empty RFC 9110 token (section 5.6.2). */
    static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Shortens text quoted in error messages to 80 characters. */
    static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
