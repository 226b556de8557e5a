package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.drill.script.Token.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrillLexerTest {

    private static List<Token> lex(String text) throws DrillParseException {
        List<Token> all = new DrillLexer("t.pkt", text).tokenize();
        assertThat(all.getLast().kind()).isEqualTo(Kind.EOF);
        return all.subList(0, all.size() - 1);
    }

    private static List<Kind> kinds(String text) throws DrillParseException {
        return lex(text).stream().map(Token::kind).toList();
    }

    private static List<String> texts(String text) throws DrillParseException {
        return lex(text).stream().map(Token::text).toList();
    }

    @Test
    void numbersWordsAndPunctuation() throws Exception {
        assertThat(kinds("3 -1 0x1F 0.25 .5 -0.5 word_1 ... --opt 192.0.2.1 fe80::1 , ("))
            .containsExactly(Kind.INTEGER, Kind.INTEGER, Kind.HEX_INTEGER, Kind.FLOAT, Kind.FLOAT, Kind.FLOAT,
                Kind.WORD, Kind.ELLIPSIS, Kind.OPTION, Kind.IPV4_ADDR, Kind.IPV6_ADDR, Kind.CHAR, Kind.CHAR);
        assertThat(texts("--tolerance_usecs=5")).containsExactly("tolerance_usecs", "=", "5");
    }

    @Test
    void longestMatchWinsAndTiesGoToTheEarlierRule() throws Exception {
        assertThat(kinds("0x1Fg")).containsExactly(Kind.WORD);
        assertThat(kinds("1000abc")).containsExactly(Kind.WORD);
        assertThat(kinds("123")).containsExactly(Kind.INTEGER);
        assertThat(kinds("0x10")).containsExactly(Kind.HEX_INTEGER);
        assertThat(texts("sequence#")).containsExactly("sequence#");
    }

    @Test
    void blockingEndTimeSplitsAroundTheEllipsis() throws Exception {
        assertThat(kinds("+0...0.2")).containsExactly(Kind.CHAR, Kind.INTEGER, Kind.ELLIPSIS, Kind.FLOAT);
        assertThat(kinds("+.1...0.200")).containsExactly(Kind.CHAR, Kind.FLOAT, Kind.ELLIPSIS, Kind.FLOAT);
    }

    @Test
    void flagsAndSequenceNumbersAreSeparateTokens() throws Exception {
        assertThat(texts("S. 1:1001(1000)")).containsExactly("S", ".", "1", ":", "1001", "(", "1000", ")");
        assertThat(kinds("1:1001 2001:3001")).doesNotContain(Kind.IPV6_ADDR);
    }

    @Test
    void commentsAreSkippedAndPositionsCountFromOne() throws Exception {
        List<Token> t = lex("// one\n/* two\n three */ x\n\ty  // four");
        assertThat(texts("// c\nx /* c */ y")).containsExactly("x", "y");
        assertThat(t.get(0).pos()).isEqualTo(new SourcePos(3, 11));
        assertThat(t.get(1).pos()).isEqualTo(new SourcePos(4, 2));
        assertThat(kinds("x // comment without a newline at the end")).containsExactly(Kind.WORD);
    }

    @Test
    void stringsAndCommandsKeepTheirTextAndMaySpanLines() throws Exception {
        List<Token> t = lex("\"a\\\"b\\n\" `echo \"x\"\nls`");
        assertThat(t.get(0).kind()).isEqualTo(Kind.STRING);
        assertThat(t.get(0).text()).isEqualTo("a\\\"b\\n");
        assertThat(t.get(1).kind()).isEqualTo(Kind.BACK_QUOTED);
        assertThat(t.get(1).text()).isEqualTo("echo \"x\"\nls");
        assertThat(t.get(1).endLine()).isEqualTo(2);
    }

    @Test
    void codeBlocksAreTrimmedOfSpacesAndTabsOnly() throws Exception {
        Token t = lex("%{ \t assert x == 1 \t}%").get(0);
        assertThat(t.kind()).isEqualTo(Kind.CODE);
        assertThat(t.text()).isEqualTo("assert x == 1");
        assertThat(lex("%{\nassert y\n}%").get(0).text()).isEqualTo("\nassert y\n");
    }

    @Test
    void carriageReturnsAreWhitespace() throws Exception {
        assertThat(texts("a\r\nb")).containsExactly("a", "b");
        assertThat(lex("a\r\nb").get(1).pos()).isEqualTo(new SourcePos(2, 1));
    }

    @Test
    void unterminatedTokensAreReportedWhereTheyStart() {
        record Case(String text, String reason) {}
        for (Case c : List.of(new Case("x \"abc", "unterminated string"), new Case("x\n `ls", "unterminated `command`"),
                new Case("x /* y", "unterminated /* comment"), new Case("x %{ y }", "unterminated %{ code block"))) {
            DrillParseException e = catchThrowableOfType(DrillParseException.class,
                () -> new DrillLexer("t.pkt", c.text()).tokenize());
            assertThat(e.reason()).startsWith(c.reason());
            assertThat(e.line()).isEqualTo(c.text().contains("\n") ? 2 : 1);
            assertThat(e.column()).isEqualTo(c.text().contains("\n") ? 2 : 3);
        }
    }
}
