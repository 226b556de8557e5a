package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A cursor over a script's tokens with the parser's checks and messages. */
final class TokenStream {
    private final String file;
    private final List<Token> tokens;
    private int index;

    TokenStream(String file, List<Token> tokens) {
        this.file = file;
        this.tokens = new ArrayList<>(tokens);
    }

    String file() {
        return file;
    }

    Token peek() {
        return peek(0);
    }

    /** The token {@code ahead} places on (the end of input past the last). */
    Token peek(int ahead) {
        int i = Math.min(index + ahead, tokens.size() - 1);
        return tokens.get(i);
    }

    Token next() {
        Token t = peek();
        if (index < tokens.size() - 1) index++;
        return t;
    }

    /** The token last taken, or the first one before any. */
    Token previous() {
        return tokens.get(Math.max(0, index - 1));
    }

    boolean atEnd() {
        return peek().kind() == Kind.EOF;
    }

    boolean at(Kind kind) {
        return peek().kind() == kind;
    }

    boolean atChar(char c) {
        return peek().isChar(c);
    }

    boolean atWord(String word) {
        return peek().isWord(word);
    }

    /** Takes the character {@code c} or fails with {@code expected 'c' <context>, found ...}. */
    Token expectChar(char c, String context) throws DrillParseException {
        if (!atChar(c)) throw expected("'" + c + "' " + context);
        return next();
    }

    /** Takes a token of {@code kind} or fails with {@code expected <what>, found ...}. */
    Token expect(Kind kind, String what) throws DrillParseException {
        if (!at(kind)) throw expected(what);
        return next();
    }

    /** {@code expected <what>, found <the next token>}, at the next token. */
    DrillParseException expected(String what) {
        Token t = peek();
        if (t.kind() == Kind.IPV6_ADDR) {
            return error(t, "not supported by jnet drill: IPv6 address '" + t.text() + "' (expected " + what + ")");
        }
        if (t.kind() == Kind.EOF && index > 0) {
            // a statement cut short by the end of the file: its last line, after its last token
            Token last = tokens.get(index - 1);
            SourcePos at = last.endLine() == last.pos().line()
                    ? new SourcePos(last.pos().line(), last.pos().column() + last.text().length()) : new SourcePos(last.endLine(), 1);
            return error(at, "expected " + what + ", found " + t.describe());
        }
        return error(t, "expected " + what + ", found " + t.describe());
    }

    DrillParseException error(Token at, String reason) {
        return new DrillParseException(file, at.pos(), reason);
    }

    DrillParseException error(SourcePos at, String reason) {
        return new DrillParseException(file, at, reason);
    }

    DrillParseException unsupported(Token at, String what) {
        return error(at, "not supported by jnet drill: " + what);
    }

    /**
     * Replaces, from the cursor on, each word that {@code defines} names by its value as packetdrill's lexer does
     * ({@code NAME=value}, {@code NAME="text"}, {@code NAME=`command`}): the value becomes the one token it reads as
     * (a number, a string ...), or a word when it reads as more than one.
     */
    void expand(Map<String, String> defines) {
        if (defines.isEmpty()) return;
        for (int i = index; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() != Kind.WORD) continue;
            String value = defines.get(t.text());
            if (value != null) tokens.set(i, expansion(t, value));
        }
    }

    private Token expansion(Token use, String value) {
        try {
            List<Token> lexed = new DrillLexer(file, value).tokenize();
            if (lexed.size() == 2) {
                Token v = lexed.get(0);
                return new Token(v.kind(), v.text(), use.pos(), use.endLine());
            }
        } catch (DrillParseException e) {
            // not one token: a plain word, as packetdrill
        }
        return new Token(Kind.WORD, value, use.pos(), use.endLine());
    }
}
