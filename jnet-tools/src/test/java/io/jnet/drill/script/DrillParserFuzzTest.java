package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Mutates valid scripts at random (characters and tokens deleted, inserted and replaced, lines duplicated and
 * swapped, text truncated) and throws random text at the parser: it must either parse or throw a
 * {@link DrillParseException} with a position inside the text, never anything else; what parses must render to text
 * that parses to the same rendering. Fixed seeds, so a failure repeats; the failing input is in the message.
 */
class DrillParserFuzzTest {
    private static final int MUTATIONS = 10000;
    private static final int RANDOM_TEXTS = 1500;

    private static final String[] TOKENS = {
        "...", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", "=", "|", "+", "*", "~", "-", ".", "`", "\"", "%{", "}%",
        "/*", "*/", "//", "\n", " ", "\t", "0", "-1", "1:1001(1000)", "0x", "0xffffffffffffffffff", "99999999999999999999",
        "4294967296", "65536", ".5", "1.", "S.", "P.", "ack", "win", "urg", "<...>", "mss", "wscale", "sackOK", "sack",
        "TS val 1 ecr 2", "FO", "md5", "ECN", "nop", "eol", "udp", "icmp", "ipv4", "ipv6", "gre", "mpls", "[ect01]",
        "[ect0]", "(tos 0x1)", "flowlabel", "ttl", "mtu", "id", "raw", "--define=A=B", "--x", "A", "EAGAIN",
        "(Resource temporarily unavailable)", "fe80::1", "192.0.2.1", "htons(", "inet_addr(\"1.2.3.4\")",
        "msg_iov(1)=", "{fd=3, events=POLLIN}", "é", "\u0000", "\r",
    };

    @Test
    void mutatedScriptsParseOrFailCleanly() throws Exception {
        List<String> corpus = new ArrayList<>();
        for (Path p : DrillCorpusTest.corpus()) corpus.add(Files.readString(p));
        Random random = new Random(20240611L);
        int parsed = 0;
        for (int i = 0; i < MUTATIONS; i++) {
            String text = corpus.get(random.nextInt(corpus.size()));
            int edits = 1 + random.nextInt(4);
            for (int k = 0; k < edits; k++) text = mutate(text, random);
            if (check(text)) parsed++;
        }
        assertThat(parsed).as("some mutations still parse").isPositive();
    }

    @Test
    void randomTextParsesOrFailsCleanly() {
        Random random = new Random(7L);
        for (int i = 0; i < RANDOM_TEXTS; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(200);
            for (int k = 0; k < n; k++) {
                if (random.nextBoolean()) {
                    b.append(TOKENS[random.nextInt(TOKENS.length)]).append(random.nextInt(3) == 0 ? " " : "");
                } else {
                    b.append((char) (random.nextInt(3) == 0 ? random.nextInt(0x3000) : 32 + random.nextInt(95)));
                }
            }
            check(b.toString());
        }
    }

    @Test
    void deepAndLongInputsFailCleanly() {
        check("0 f(" + "{".repeat(5000));
        check("0 f(" + "a=".repeat(5000) + "1) = 0");
        check("0 f(" + "A|".repeat(20000) + "B) = 0");
        check("0 > S 0:0(0) <" + "nop,".repeat(20000) + "nop>");
        check("0 x" + "1:".repeat(20000));
        check("+".repeat(10000));
    }

    /** Whether {@code text} parsed; fails the test on anything but success or a well-placed parse error. */
    private static boolean check(String text) {
        try {
            Script s = DrillParser.parse("fuzz.pkt", text);
            if (s.options().stream().noneMatch(o -> o.name().equals("define"))) {
                String rendered = s.render();
                String again = DrillParser.parse("rendered.pkt", rendered).render();
                if (!again.equals(rendered)) fail("rendering is not stable for:\n" + shown(text) + "\n--- rendered:\n" + shown(rendered));
            }
            return true;
        } catch (DrillParseException e) {
            long lines = text.chars().filter(c -> c == '\n').count() + 1;
            if (e.line() < 1 || e.line() > lines || e.column() < 1) {
                fail("parse error outside the text (" + e.getMessage() + ") for:\n" + shown(text));
            }
            return false;
        } catch (Throwable t) {
            throw new AssertionError("the parser threw " + t + " for:\n" + shown(text), t);
        }
    }

    /** The input as a message shows it: at most 2000 characters. */
    private static String shown(String text) {
        return text.length() <= 2000 ? text : text.substring(0, 2000) + "... (" + text.length() + " characters)";
    }

    private static String mutate(String text, Random r) {
        if (text.isEmpty()) return TOKENS[r.nextInt(TOKENS.length)];
        int at = r.nextInt(text.length());
        return switch (r.nextInt(8)) {
            case 0 -> text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + r.nextInt(8)));
            case 1 -> text.substring(0, at) + TOKENS[r.nextInt(TOKENS.length)] + text.substring(at);
            case 2 -> text.substring(0, at) + (char) (32 + r.nextInt(95)) + text.substring(at + 1);
            case 3 -> text.substring(0, at);
            case 4 -> replaceWord(text, at, TOKENS[r.nextInt(TOKENS.length)]);
            case 5 -> duplicateLine(text, r);
            case 6 -> swapLines(text, r);
            default -> text.substring(0, at) + text.substring(at, Math.min(text.length(), at + 20)) + text.substring(at);
        };
    }

    private static String replaceWord(String text, int at, String with) {
        int start = at;
        while (start > 0 && !Character.isWhitespace(text.charAt(start - 1))) start--;
        int end = at;
        while (end < text.length() && !Character.isWhitespace(text.charAt(end))) end++;
        return text.substring(0, start) + with + text.substring(end);
    }

    private static String duplicateLine(String text, Random r) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int i = r.nextInt(lines.size());
        lines.add(i, lines.get(i));
        return String.join("\n", lines);
    }

    private static String swapLines(String text, Random r) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int i = r.nextInt(lines.size());
        int j = r.nextInt(lines.size());
        String t = lines.get(i);
        lines.set(i, lines.get(j));
        lines.set(j, t);
        return String.join("\n", lines);
    }
}
