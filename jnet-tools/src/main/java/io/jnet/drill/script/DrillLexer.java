package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits a script into {@link Token}s as packetdrill's lexer ({@code lexer.l}) does: at each place the longest match
 * wins, a tie goes to the earlier rule (integer before hex before word). Whitespace, {@code //} and {@code /* *}{@code /}
 * comments are skipped. Differences, all more lenient: a carriage return counts as whitespace, a {@code //} comment
 * may end the input without a newline, and packetdrill's keywords ({@code ack}, {@code win}, {@code mss} ...) are
 * plain words whose meaning the parser gives by place.
 */
final class DrillLexer {
    /** The longest text of an IPv6 address (eight groups with a dotted quad: 45 characters). */
    private static final int MAX_IPV6_TEXT = 45;

    private final String file;
    private final String text;
    private final int[] lineStarts;

    DrillLexer(String file, String text) {
        this.file = file;
        this.text = text;
        this.lineStarts = lineStarts(text);
    }

    /**
     * The tokens of the whole text, ending with one {@link Kind#EOF}.
     *
     * @throws DrillParseException for an unterminated string, command, comment or code block
     */
    List<Token> tokenize() throws DrillParseException {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
            } else if (text.startsWith("//", i)) {
                int nl = text.indexOf('\n', i);
                i = nl < 0 ? n : nl + 1;
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                if (end < 0) throw error(i, "unterminated /* comment");
                i = end + 2;
            } else if (text.startsWith("%{", i)) {
                int end = text.indexOf("}%", i + 2);
                if (end < 0) throw error(i, "unterminated %{ code block (no }% after it)");
                out.add(token(Kind.CODE, trimSpacesAndTabs(text.substring(i + 2, end)), i, end + 1));
                i = end + 2;
            } else if (c == '"' || c == '`') {
                int end = closing(i, c);
                if (end < 0) {
                    throw error(i, c == '"' ? "unterminated string (no closing \")" : "unterminated `command` (no closing `)");
                }
                out.add(token(c == '"' ? Kind.STRING : Kind.BACK_QUOTED, text.substring(i + 1, end), i, end));
                i = end + 1;
            } else {
                i = scanLongest(i, out);
            }
        }
        out.add(token(Kind.EOF, "", n, n));
        return out;
    }

    /** The position of a character offset (1-based line and column). */
    SourcePos pos(int offset) {
        int idx = Arrays.binarySearch(lineStarts, offset);
        int line = idx >= 0 ? idx : -idx - 2;
        return new SourcePos(line + 1, offset - lineStarts[line] + 1);
    }

    private int scanLongest(int i, List<Token> out) {
        int ellipsis = text.startsWith("...", i) ? 3 : 0;
        int option = matchOption(i);
        int floating = matchFloat(i);
        int integer = matchInteger(i);
        int hex = matchHex(i);
        int word = matchWord(i);
        int ipv4 = matchIpv4(i);
        int ipv6 = matchIpv6(i);
        Kind kind = Kind.CHAR;
        int len = 1;
        // in lexer.l's order, so that the first rule wins a tie
        int[] lens = {ellipsis, option, floating, integer, hex, word, ipv4, ipv6};
        Kind[] kinds = {Kind.ELLIPSIS, Kind.OPTION, Kind.FLOAT, Kind.INTEGER, Kind.HEX_INTEGER, Kind.WORD,
            Kind.IPV4_ADDR, Kind.IPV6_ADDR};
        int best = 0;
        for (int k = 0; k < lens.length; k++) {
            if (lens[k] > best) {
                best = lens[k];
                kind = kinds[k];
                len = lens[k];
            }
        }
        if (kind == Kind.WORD && text.startsWith("sequence#", i) && len == "sequence".length()) {
            len++; // GRE's keyword
        }
        String value = text.substring(i, i + len);
        if (kind == Kind.OPTION) value = value.substring(2);
        out.add(token(kind, value, i, i + len - 1));
        return i + len;
    }

    private int matchOption(int i) {
        if (!text.startsWith("--", i)) return 0;
        int j = i + 2;
        while (j < text.length() && isWordChar(text.charAt(j))) j++;
        return j > i + 2 ? j - i : 0;
    }

    private int matchFloat(int i) {
        int j = i;
        if (j < text.length() && text.charAt(j) == '-') j++;
        j = digits(j);
        if (j >= text.length() || text.charAt(j) != '.') return 0;
        int k = digits(j + 1);
        return k > j + 1 ? k - i : 0;
    }

    private int matchInteger(int i) {
        int j = i;
        if (j < text.length() && text.charAt(j) == '-') j++;
        int k = digits(j);
        return k > j ? k - i : 0;
    }

    private int matchHex(int i) {
        if (!text.startsWith("0x", i)) return 0;
        int j = i + 2;
        while (j < text.length() && Character.digit(text.charAt(j), 16) >= 0 && text.charAt(j) < 128) j++;
        return j > i + 2 ? j - i : 0;
    }

    private int matchWord(int i) {
        int j = i;
        while (j < text.length() && isWordChar(text.charAt(j))) j++;
        return j - i;
    }

    private int matchIpv4(int i) {
        int j = i;
        for (int part = 0; part < 4; part++) {
            if (part > 0) {
                if (j >= text.length() || text.charAt(j) != '.') return 0;
                j++;
            }
            int k = digits(j);
            if (k == j) return 0;
            j = k;
        }
        return j - i;
    }

    /** The longest IPv6 address at {@code i} (with a {@code ::} or eight groups, as lexer.l's forms), or 0. */
    private int matchIpv6(int i) {
        int j = i;
        while (j < text.length() && j - i < MAX_IPV6_TEXT && isIpv6Char(text.charAt(j))) j++;
        if (text.substring(i, j).indexOf(':') < 0) return 0;
        for (int end = j; end > i + 1; end--) {
            if (Ipv6Text.isAddress(text.substring(i, end))) return end - i;
        }
        return 0;
    }

    private int digits(int j) {
        while (j < text.length() && text.charAt(j) >= '0' && text.charAt(j) <= '9') j++;
        return j;
    }

    private int closing(int open, char quote) {
        for (int j = open + 1; j < text.length(); j++) {
            char c = text.charAt(j);
            if (c == '\\') {
                j++;
            } else if (c == quote) {
                return j;
            }
        }
        return -1;
    }

    private Token token(Kind kind, String value, int start, int last) {
        return new Token(kind, value, pos(start), pos(Math.max(start, last)).line());
    }

    private DrillParseException error(int offset, String reason) {
        return new DrillParseException(file, pos(offset), reason);
    }

    private static boolean isWordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }

    private static boolean isIpv6Char(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    }

    private static String trimSpacesAndTabs(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && (s.charAt(a) == ' ' || s.charAt(a) == '\t')) a++;
        while (b > a && (s.charAt(b - 1) == ' ' || s.charAt(b - 1) == '\t')) b--;
        return s.substring(a, b);
    }

    private static int[] lineStarts(String text) {
        List<Integer> starts = new ArrayList<>();
        starts.add(0);
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') starts.add(i + 1);
        }
        return starts.stream().mapToInt(Integer::intValue).toArray();
    }
}
