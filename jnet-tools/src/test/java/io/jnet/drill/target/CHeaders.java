package io.jnet.drill.target;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads integer constants and one struct's layout out of C headers, well enough to check tables against this
 * machine's {@code /usr/include}: object-like {@code #define}s and enum members whose values are integer expressions
 * ({@code |}, {@code <<}, {@code +}, {@code -}, {@code ~}, parentheses, casts to {@code __}-types, other constants).
 * Preprocessor conditionals are not followed, so a name may get several values ({@link #values}).
 */
final class CHeaders {

    private static final Pattern DEFINE = Pattern.compile("^\\s*#\\s*define\\s+([A-Za-z_][A-Za-z0-9_]*)\\s+(.+)$");
    private static final Pattern MEMBER = Pattern.compile("^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*(?:=\\s*(.+))?$");
    private static final Set<String> CAST_WORDS = Set.of("int", "unsigned", "long", "short", "char", "signed");

    private final Map<String, List<String>> raw = new LinkedHashMap<>();
    private final Map<String, Set<Long>> cache = new HashMap<>();
    private final List<String> texts = new ArrayList<>();

    /** Parses the given headers (missing ones are ignored). */
    CHeaders(List<Path> headers) throws IOException {
        for (Path h : headers) {
            if (!Files.isRegularFile(h)) continue;
            String text = stripComments(Files.readString(h));
            texts.add(text);
            parse(text);
        }
    }

    static String stripComments(String s) {
        return s.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", "");
    }

    private void parse(String text) {
        boolean inEnum = false;
        boolean enumPending = false;
        String enumPrev = null;
        for (String line : text.split("\n")) {
            Matcher d = DEFINE.matcher(line);
            if (d.matches()) {
                String value = d.group(2).trim();
                if (!value.equals(d.group(1))) raw.computeIfAbsent(d.group(1), k -> new ArrayList<>()).add(value);
                continue;
            }
            if (line.trim().startsWith("#")) continue;
            if (!inEnum && line.matches(".*\\benum\\b[^;]*")) enumPending = true;
            if (!inEnum && enumPending && line.contains("{")) {
                inEnum = true;
                enumPending = false;
                enumPrev = null;
                line = line.substring(line.indexOf('{') + 1);
            }
            if (!inEnum) continue;
            boolean ends = line.contains("}");
            if (ends) line = line.substring(0, line.indexOf('}'));
            for (String part : line.split(",")) {
                Matcher m = MEMBER.matcher(part.trim());
                if (part.isBlank() || !m.matches()) continue;
                String name = m.group(1);
                String expr = m.group(2) != null ? m.group(2).trim() : (enumPrev == null ? "0" : "(" + enumPrev + ") + 1");
                raw.computeIfAbsent(name, k -> new ArrayList<>()).add(expr);
                enumPrev = name;
            }
            if (ends) inEnum = false;
        }
    }

    /** The values {@code name} evaluates to (empty when it is unknown or not a plain integer expression). */
    Set<Long> values(String name) {
        return values(name, new HashSet<>());
    }

    private Set<Long> values(String name, Set<String> visiting) {
        Set<Long> cached = cache.get(name);
        if (cached != null) return cached;
        Set<Long> out = new LinkedHashSet<>();
        List<String> defs = raw.get(name);
        if (defs == null || !visiting.add(name)) return out;
        for (String expr : defs) {
            try {
                out.add(new Eval(tokens(expr), visiting).expr());
            } catch (RuntimeException e) {
                // not an integer expression (a function-like macro, sizeof, a string ...)
            }
        }
        visiting.remove(name);
        cache.put(name, out);
        return out;
    }

    private static List<String> tokens(String expr) {
        List<String> t = new ArrayList<>();
        Matcher m = Pattern.compile("0[xX][0-9a-fA-F]+[uUlL]*|\\d+[uUlL]*|[A-Za-z_][A-Za-z0-9_]*|<<|>>|\\S").matcher(expr);
        while (m.find()) t.add(m.group());
        return t;
    }

    private final class Eval {
        private final List<String> t;
        private final Set<String> visiting;
        private int i;

        Eval(List<String> t, Set<String> visiting) {
            this.t = t;
            this.visiting = visiting;
        }

        long expr() {
            long v = or();
            if (i != t.size()) throw new IllegalArgumentException("trailing " + t.subList(i, t.size()));
            return v;
        }

        private long or() {
            long v = shift();
            while (peek("|")) { i++; v |= shift(); }
            return v;
        }

        private long shift() {
            long v = add();
            while (peek("<<") || peek(">>")) {
                boolean left = t.get(i++).equals("<<");
                long n = add();
                v = left ? v << n : v >> n;
            }
            return v;
        }

        private long add() {
            long v = unary();
            while (peek("+") || peek("-")) {
                boolean plus = t.get(i++).equals("+");
                long n = unary();
                v = plus ? v + n : v - n;
            }
            return v;
        }

        private long unary() {
            if (peek("-")) { i++; return -unary(); }
            if (peek("~")) { i++; return ~unary(); }
            return primary();
        }

        private long primary() {
            String tok = t.get(i++);
            if (tok.equals("(")) {
                int j = i;
                while (j < t.size() && (t.get(j).startsWith("__") || CAST_WORDS.contains(t.get(j)))) j++;
                if (j > i && j < t.size() && t.get(j).equals(")")) { // a cast
                    i = j + 1;
                    return unary();
                }
                long v = or();
                if (!peek(")")) throw new IllegalArgumentException("no )");
                i++;
                return v;
            }
            if (Character.isDigit(tok.charAt(0))) {
                String digits = tok.replaceAll("[uUlL]+$", "");
                boolean unsigned = tok.matches(".*[uU].*");
                long v;
                if (digits.startsWith("0x") || digits.startsWith("0X")) v = Long.parseLong(digits.substring(2), 16);
                else if (digits.length() > 1 && digits.startsWith("0")) v = Long.parseLong(digits.substring(1), 8);
                else v = Long.parseLong(digits);
                return unsigned ? v & 0xFFFF_FFFFL : v;
            }
            if (Character.isLetter(tok.charAt(0)) || tok.charAt(0) == '_') {
                if (peek("(")) throw new IllegalArgumentException("function-like macro " + tok);
                Set<Long> v = values(tok, visiting);
                if (v.size() != 1) throw new IllegalArgumentException("no single value for " + tok);
                return v.iterator().next();
            }
            throw new IllegalArgumentException("unexpected " + tok);
        }

        private boolean peek(String s) {
            return i < t.size() && t.get(i).equals(s);
        }
    }

    /** A member of a struct as GCC lays it out on x86_64 (bit-fields with their storage unit). */
    record Member(String name, int offset, int width, int bitOffset, int bits) {}

    /**
     * The members of {@code struct NAME} from the parsed headers, laid out with natural alignment and GCC's
     * bit-field rules (a bit-field starts a new storage unit of its type only when it would straddle one), for
     * members of the fixed-width types {@code __u8 .. __u64} / {@code __s8 .. __s64}.
     */
    List<Member> struct(String name) {
        Pattern start = Pattern.compile("struct\\s+" + name + "\\s*\\{([^}]*)\\}", Pattern.DOTALL);
        for (String text : texts) {
            Matcher m = start.matcher(text);
            if (!m.find()) continue;
            List<Member> out = new ArrayList<>();
            long bit = 0;
            for (String decl : m.group(1).split(";")) {
                decl = decl.trim().replaceAll("\\s+", " ");
                if (decl.isEmpty()) continue;
                Matcher tm = Pattern.compile("__[us](8|16|32|64) (.+)").matcher(decl);
                if (!tm.matches()) throw new IllegalArgumentException("unhandled member: " + decl);
                int size = Integer.parseInt(tm.group(1)) / 8;
                for (String d : tm.group(2).split(",")) {
                    String[] nb = d.trim().split("\\s*:\\s*");
                    String member = nb[0].trim();
                    if (nb.length == 2) {
                        int bits = Integer.parseInt(nb[1].trim());
                        long unitBits = size * 8L;
                        if (bit % unitBits + bits > unitBits) bit = (bit / unitBits + 1) * unitBits;
                        int unitOffset = (int) (bit / unitBits * size);
                        out.add(new Member(member, unitOffset, size, (int) (bit % unitBits), bits));
                        bit += bits;
                    } else {
                        long align = size * 8L;
                        bit = (bit + align - 1) / align * align;
                        out.add(new Member(member, (int) (bit / 8), size, 0, 0));
                        bit += size * 8L;
                    }
                }
            }
            return out;
        }
        return List.of();
    }
}
