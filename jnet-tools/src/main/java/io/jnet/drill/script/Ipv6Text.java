package io.jnet.drill.script;

/** Recognises the textual IPv6 address forms packetdrill's lexer accepts (RFC 4291 section 2.2). */
final class Ipv6Text {
    private Ipv6Text() {}

    /**
     * Whether {@code s} is an IPv6 address: hex groups of 1 to 4 digits separated by {@code :}, either eight of them
     * or fewer with one {@code ::}, the last two groups optionally written as a dotted IPv4 address.
     */
    static boolean isAddress(String s) {
        int doubleColon = s.indexOf("::");
        if (doubleColon >= 0 && s.indexOf("::", doubleColon + 1) >= 0) return false;
        if (doubleColon < 0) {
            int groups = groups(s);
            return groups == 8;
        }
        String head = s.substring(0, doubleColon);
        String tail = s.substring(doubleColon + 2);
        int h = head.isEmpty() ? 0 : groups(head);
        int t = tail.isEmpty() ? 0 : groups(tail);
        if (h < 0 || t < 0) return false;
        if (!head.isEmpty() && head.contains(".")) return false;
        return h + t <= 7;
    }

    /** The number of 16-bit groups in a colon-separated run (a trailing dotted quad counts 2), or -1. */
    private static int groups(String s) {
        String[] parts = s.split(":", -1);
        int count = 0;
        for (int k = 0; k < parts.length; k++) {
            String p = parts[k];
            if (k == parts.length - 1 && p.indexOf('.') >= 0) {
                if (!isDottedQuad(p)) return -1;
                count += 2;
            } else if (p.isEmpty() || p.length() > 4 || !isHex(p)) {
                return -1;
            } else {
                count++;
            }
        }
        return count;
    }

    private static boolean isHex(String p) {
        for (int i = 0; i < p.length(); i++) {
            if (Character.digit(p.charAt(i), 16) < 0 || p.charAt(i) > 127) return false;
        }
        return true;
    }

    private static boolean isDottedQuad(String p) {
        String[] parts = p.split("\\.", -1);
        if (parts.length != 4) return false;
        for (String q : parts) {
            if (q.isEmpty() || q.length() > 3) return false;
            for (int i = 0; i < q.length(); i++) {
                if (q.charAt(i) < '0' || q.charAt(i) > '9') return false;
            }
        }
        return true;
    }
}
