package io.jnet.drill.play;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Evaluates a packetdrill code block, {@code %{ ... }%}, without a Python interpreter. packetdrill runs such a block
 * as Python with the socket's {@code struct tcp_info} fields ({@code tcpi_snd_cwnd} ...) and a few symbols
 * ({@code TCP_CA_Open}, {@code TCPI_OPT_SACK} ...) defined as integers; scripts use it to assert on them. This class
 * understands the subset of Python such blocks use, with Python 3's semantics:
 *
 * <ul>
 *   <li>statements separated by newlines or {@code ;}, blank lines, {@code #} comments, a backslash joining lines and
 *       brackets spanning lines; {@code assert TEST} and {@code assert TEST, MESSAGE}; {@code name = EXPR} (a local
 *       name for later statements); {@code pass}; a bare expression (evaluated, its value dropped);
 *   <li>integers of any size (up to {@value #MAX_BITS} bits) and floats: literals (decimal, {@code 0x}, {@code 0o},
 *       {@code 0b}, with {@code _}; {@code 1.5}, {@code 1e3}), {@code True}, {@code False}, names, parentheses;
 *   <li>{@code or}, {@code and} (short-circuit, yielding an operand), {@code not}, comparisons ({@code == != < <= > >=},
 *       chained as {@code a < b < c}), {@code | ^ &}, {@code << >>}, {@code + -}, {@code * / // %} ({@code /} is true
 *       division, {@code //} and {@code %} floor), unary {@code - + ~}, {@code **} with a non-negative integer
 *       exponent; calls {@code abs(x)}, {@code min(a, b, ...)}, {@code max(a, b, ...)}; Python's precedence;
 *   <li>a string literal as a whole assert message.
 * </ul>
 *
 * Python's run-time errors ({@code ZeroDivisionError}, {@code ValueError: negative shift count}, {@code TypeError},
 * {@code OverflowError}) fail the block as they would fail packetdrill's. Anything else is {@link Unsupported}, never
 * guessed: loops, {@code if}, {@code def}, imports, other calls ({@code print}), attributes, subscripts, lists,
 * tuples, other strings, {@code in}/{@code is}, {@code None}, floats with {@code **}, indented lines, text that does
 * not parse, and names {@code names} does not know. As Python compiles a block before running it, a construct
 * outside the subset anywhere in the block makes it unsupported even after a failed assert; an unknown name only
 * when evaluated.
 */
public final class CodeBlock {
    /** Integers beyond this many bits are unsupported (Python's 4300-digit limit on printing them is near). */
    static final int MAX_BITS = 13_000;

    /** How deeply parentheses, unary operators and the evaluation of nested operations may nest. */
    private static final int MAX_NESTING = 100;

    private static final int MAX_DEPTH = 500;

    private CodeBlock() {}

    /**
     * The outcome of a block.
     *
     * @param passed whether every statement ran and every assert held
     * @param message empty if passed; else the failed assert, the values of the names its test read and its
     *     evaluated message ({@code assert tcpi_snd_cwnd == 10 failed: tcpi_snd_cwnd = 12 (AssertionError: 12)}),
     *     or the Python error raised and the statement raising it ({@code ZeroDivisionError: division by zero (in:
     *     x = 1 / 0)})
     */
    public record Result(boolean passed, String message) {}

    /** A construct outside the subset this class evaluates, or a name it was not given. */
    public static final class Unsupported extends Exception {
        public Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Evaluates a {@code %{ }%} block.
     *
     * @param code the text between {@code %{} and {@code }%}
     * @param names the value of a name: {@code tcpi_*} fields and symbols ({@code TCP_CA_Open}, {@code TCPI_OPT_SACK},
     *     {@code TCP_ESTABLISHED} ...), read as unsigned 64-bit numbers (as packetdrill prints them, {@code %llu});
     *     null for a name it does not know. Asked only for names the block reads and has not assigned.
     * @throws Unsupported for a construct outside the subset or an unknown name
     */
    public static Result evaluate(String code, Function<String, Long> names) throws Unsupported {
        List<Stmt> program = new Parser(code).program();
        return new Interpreter(names).run(program);
    }

    /** The value of one expression as Python's {@code repr} shows it, or Python's error ({@code ZeroDivisionError: ...}). */
    static String valueOf(String expression, Function<String, Long> names) throws Unsupported {
        Expr e = new Parser(expression).lone();
        try {
            return str(new Interpreter(names).eval(e, 0));
        } catch (PythonError err) {
            return err.getMessage();
        }
    }

    private static Unsupported construct(String whatIsOrAre) {
        return new Unsupported("Python " + whatIsOrAre + " not supported in %{ }% blocks");
    }

    // ---------------------------------------------------------------- tokens

    private enum Kind { NUMBER, NAME, STRING, OP, NEWLINE, END }

    /** A token; {@code value} is the number (BigInteger or Double) or the string's text. */
    private record Token(Kind kind, String text, Object value, int start, int end, int line, int column) {}

    private static final Set<String> KEYWORDS = Set.of("False", "None", "True", "and", "as", "assert", "async", "await",
            "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
            "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
            "with", "yield");

    /** Keywords that may begin an expression (the others begin a statement). */
    private static final Set<String> EXPRESSION_KEYWORDS = Set.of("False", "None", "True", "not", "lambda", "await");

    private static final Set<String> OPERATORS = Set.of("**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**",
            "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=", "==", ">=", ">>", "@=", "^=", "|=", "%", "&", "(",
            ")", "*", "+", ",", "-", ".", "/", ":", ";", "<", "=", ">", "@", "[", "]", "^", "{", "|", "}", "~");

    private static final Set<String> AUGMENTED = Set.of("+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=",
            "<<=", ">>=", "@=");

    private static final Set<String> COMPARISONS = Set.of("==", "!=", "<", "<=", ">", ">=");

    private static final Set<String> STRING_PREFIXES = Set.of("r", "u", "b", "f", "br", "rb", "fr", "rf");

    private static final Set<String> FUNCTIONS = Set.of("abs", "min", "max");

    private static final String DIGITS = "\\d(?:_?\\d)*";

    /** Python's number literals, the float forms before the integer one. */
    private static final Pattern NUMBER = Pattern.compile("0[xX](?<hex>(?:_?[0-9a-fA-F])+)|0[oO](?<oct>(?:_?[0-7])+)"
            + "|0[bB](?<bin>(?:_?[01])+)"
            + "|(?<float>(?:(?:" + DIGITS + ")?\\." + DIGITS + "|" + DIGITS + "\\.)(?:[eE][+-]?" + DIGITS + ")?"
            + "|" + DIGITS + "[eE][+-]?" + DIGITS + ")"
            + "|(?<dec>" + DIGITS + ")");

    /** Splits a block into tokens as Python's tokenizer does for this subset (NEWLINE ends a logical line). */
    private static final class Lexer {
        private final String src;
        private final List<Token> out = new ArrayList<>();
        private int line = 1;
        private int lineBegin;
        /** The first line indented (Python rejects it); reported only if the parser finds nothing more telling. */
        int indentedLine;

        Lexer(String src) { this.src = src; }

        List<Token> tokens() throws Unsupported {
            int n = src.length();
            int depth = 0;
            boolean lineStart = true;
            int i = 0;
            while (i < n) {
                char c = src.charAt(i);
                if (lineStart) {
                    lineStart = false;
                    int j = i;
                    while (j < n && (src.charAt(j) == ' ' || src.charAt(j) == '\t' || src.charAt(j) == '\f')) j++;
                    if (j > i && j < n && "\r\n#".indexOf(src.charAt(j)) < 0 && indentedLine == 0) indentedLine = line;
                    i = j;
                } else if (c == ' ' || c == '\t' || c == '\f') {
                    i++;
                } else if (c == '\r' || c == '\n') {
                    i += c == '\r' && i + 1 < n && src.charAt(i + 1) == '\n' ? 2 : 1;
                    if (depth == 0) {
                        if (!out.isEmpty() && out.getLast().kind() != Kind.NEWLINE) add(Kind.NEWLINE, null, i, i);
                        lineStart = true;
                    }
                    line++;
                    lineBegin = i;
                } else if (c == '#') {
                    while (i < n && src.charAt(i) != '\n' && src.charAt(i) != '\r') i++;
                } else if (c == '\\') {
                    if (i + 1 < n && (src.charAt(i + 1) == '\n' || src.charAt(i + 1) == '\r')) {
                        i += src.startsWith("\r\n", i + 1) ? 3 : 2;
                        line++;
                        lineBegin = i;
                    } else {
                        throw error("a backslash not at the end of a line", i);
                    }
                } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(src.charAt(i + 1)))) {
                    i = number(i);
                } else if (Character.isLetter(c) || c == '_') {
                    int j = i + 1;
                    while (j < n && (Character.isLetterOrDigit(src.charAt(j)) || src.charAt(j) == '_')) j++;
                    if (j < n && (src.charAt(j) == '\'' || src.charAt(j) == '"')
                            && STRING_PREFIXES.contains(src.substring(i, j).toLowerCase(Locale.ROOT))) {
                        throw construct("prefixed string literals (f'', r'', b'', u'') are");
                    }
                    add(Kind.NAME, null, i, j);
                    i = j;
                } else if (c == '\'' || c == '"') {
                    i = string(i);
                } else {
                    String op = null;
                    for (int len = 3; len >= 1 && op == null; len--) {
                        if (i + len <= n && OPERATORS.contains(src.substring(i, i + len))) op = src.substring(i, i + len);
                    }
                    if (op == null) throw error("unexpected character '" + c + "'", i);
                    if ("([{".contains(op)) depth++;
                    if (")]}".contains(op) && --depth < 0) throw error("unmatched '" + op + "'", i);
                    add(Kind.OP, null, i, i + op.length());
                    i += op.length();
                }
            }
            if (depth > 0) throw error("a bracket is never closed", n);
            if (!out.isEmpty() && out.getLast().kind() != Kind.NEWLINE) add(Kind.NEWLINE, null, n, n);
            add(Kind.END, null, n, n);
            return out;
        }

        private int number(int i) throws Unsupported {
            Matcher m = NUMBER.matcher(src).region(i, src.length());
            if (!m.lookingAt()) throw error("a malformed number", i);
            int end = m.end();
            if (end < src.length() && (Character.isLetterOrDigit(src.charAt(end)) || src.charAt(end) == '_')) {
                if (src.charAt(end) == 'j' || src.charAt(end) == 'J') throw construct("complex numbers are");
                throw error("a malformed number", i);
            }
            String text = m.group().replace("_", "");
            if (text.length() > 4000) throw construct("number literals of more than 4000 digits are");
            Object value;
            if (m.group("float") != null) {
                value = Double.parseDouble(text);
            } else if (m.group("dec") != null) {
                if (text.startsWith("0") && !text.matches("0+")) {
                    throw error("a decimal integer with a leading zero (Python rejects it)", i);
                }
                value = new BigInteger(text);
            } else {
                value = new BigInteger(text.substring(2), m.group("hex") != null ? 16 : m.group("oct") != null ? 8 : 2);
            }
            add(Kind.NUMBER, value, i, end);
            return end;
        }

        /** A single-quoted string with the common escapes; any other escape is kept as written. */
        private int string(int i) throws Unsupported {
            char q = src.charAt(i);
            if (src.startsWith(String.valueOf(q).repeat(3), i)) throw construct("triple-quoted strings are");
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (true) {
                if (j >= src.length() || src.charAt(j) == '\n' || src.charAt(j) == '\r') {
                    throw error("an unterminated string", i);
                }
                char c = src.charAt(j);
                if (c == q) break;
                if (c == '\\' && j + 1 < src.length()) {
                    char e = src.charAt(j + 1);
                    switch (e) {
                        case 'n' -> text.append('\n');
                        case 't' -> text.append('\t');
                        case 'r' -> text.append('\r');
                        case '\\', '\'', '"' -> text.append(e);
                        case '\n', '\r' -> throw error("a string continued on the next line", i);
                        default -> text.append(c).append(e);
                    }
                    j += 2;
                } else {
                    text.append(c);
                    j++;
                }
            }
            add(Kind.STRING, text.toString(), i, j + 1);
            return j + 1;
        }

        private void add(Kind kind, Object value, int start, int end) {
            out.add(new Token(kind, src.substring(start, end), value, start, end, line, start - lineBegin + 1));
        }

        private Unsupported error(String what, int at) {
            return new Unsupported("cannot parse the %{ }% block as Python: " + what + " (line " + line + ", column "
                    + (at - lineBegin + 1) + ")");
        }
    }

    // ---------------------------------------------------------------- syntax tree

    private sealed interface Expr {}

    private record Const(Object value) implements Expr {}

    private record Str(String text) implements Expr {}

    private record Name(String name) implements Expr {}

    private record Unary(String op, Expr operand) implements Expr {}

    private record Binary(String op, Expr left, Expr right) implements Expr {}

    private record Not(Expr operand) implements Expr {}

    /** {@code and} ({@code isAnd}) or {@code or}. */
    private record BoolOp(boolean isAnd, Expr left, Expr right) implements Expr {}

    /** {@code first ops[0] rest[0] ops[1] rest[1] ...}: Python's chained comparison. */
    private record Compare(Expr first, List<String> ops, List<Expr> rest) implements Expr {}

    private record Call(String function, List<Expr> args) implements Expr {}

    /** A statement; {@code text} is its source, for messages. */
    private sealed interface Stmt {
        String text();
    }

    private record Assert(Expr test, Expr message, String testText, String text) implements Stmt {}

    private record Assign(String name, Expr value, String text) implements Stmt {}

    private record Eval(Expr expr, String text) implements Stmt {}

    /** A recursive-descent parser, one method per level of Python's precedence, lowest first. */
    private static final class Parser {
        /** The binary operators from {@code |} (lowest) to {@code * / // % @} (highest). */
        private static final List<Set<String>> LEVELS = List.of(Set.of("|"), Set.of("^"), Set.of("&"),
                Set.of("<<", ">>"), Set.of("+", "-"), Set.of("*", "/", "//", "%", "@"));

        private final List<Token> tokens;
        private int pos;
        private int nesting;

        private final int indentedLine;

        Parser(String code) throws Unsupported {
            Lexer lexer = new Lexer(stripSpacesAndTabs(code));
            this.tokens = lexer.tokens();
            this.indentedLine = lexer.indentedLine;
        }

        /** As packetdrill's lexer leaves a block: without spaces and tabs at either end (a leading newline stays). */
        private static String stripSpacesAndTabs(String s) {
            int b = 0;
            int e = s.length();
            while (b < e && (s.charAt(b) == ' ' || s.charAt(b) == '\t')) b++;
            while (e > b && (s.charAt(e - 1) == ' ' || s.charAt(e - 1) == '\t')) e--;
            return s.substring(b, e);
        }

        List<Stmt> program() throws Unsupported {
            List<Stmt> out = new ArrayList<>();
            while (peek().kind() != Kind.END) {
                if (peek().kind() == Kind.NEWLINE) {
                    pos++;
                    continue;
                }
                Stmt s = statement();
                if (s != null) out.add(s);
                if (isOp(";")) {
                    pos++;
                } else if (peek().kind() != Kind.NEWLINE) {
                    throw unexpected(peek());
                }
            }
            checkIndentation();
            return out;
        }

        Expr lone() throws Unsupported {
            Expr e = expression();
            if (peek().kind() != Kind.NEWLINE) throw unexpected(peek());
            checkIndentation();
            return e;
        }

        private void checkIndentation() throws Unsupported {
            if (indentedLine > 0) {
                throw new Unsupported("an indented line in a %{ }% block (line " + indentedLine
                        + "): Python rejects an unexpected indent");
            }
        }

        private Stmt statement() throws Unsupported {
            int start = pos;
            Token t = peek();
            if (t.kind() == Kind.NAME) {
                if (t.text().equals("assert")) return assertion();
                if (t.text().equals("print") && !tokens.get(pos + 1).text().equals("=")) {
                    throw construct("print statements and calls are");
                }
                if (t.text().equals("pass")) {
                    pos++;
                    return null;
                }
                if (KEYWORDS.contains(t.text()) && !EXPRESSION_KEYWORDS.contains(t.text())) {
                    throw construct(keyword(t.text(), true));
                }
                Token next = tokens.get(pos + 1);
                if (!KEYWORDS.contains(t.text()) && next.kind() == Kind.OP) {
                    if (AUGMENTED.contains(next.text())) throw construct("augmented assignments (x " + next.text() + " y) are");
                    if (next.text().equals("=")) {
                        if (FUNCTIONS.contains(t.text())) throw construct("assignments to abs, min or max are");
                        pos += 2;
                        Expr value = expression();
                        if (isOp("=")) throw construct("chained assignments (a = b = c) are");
                        return new Assign(t.text(), value, text(start));
                    }
                }
            }
            Expr e = expression();
            if (isOp("=")) throw construct("assignments to anything but a simple name are");
            return new Eval(e, text(start));
        }

        private Stmt assertion() throws Unsupported {
            int start = pos++;
            int testStart = pos;
            Expr test = expression();
            String testText = text(testStart);
            Expr message = null;
            if (isOp(",")) {
                pos++;
                if (peek().kind() == Kind.STRING) {
                    StringBuilder s = new StringBuilder();
                    while (peek().kind() == Kind.STRING) s.append((String) tokens.get(pos++).value());
                    if (peek().kind() != Kind.NEWLINE && !isOp(";")) {
                        throw construct("string literals other than a whole assert message are");
                    }
                    message = new Str(s.toString());
                } else {
                    message = expression();
                }
            }
            return new Assert(test, message, testText, text(start));
        }

        private Expr expression() throws Unsupported {
            Expr e = andTest();
            while (isName("or")) {
                pos++;
                e = new BoolOp(false, e, andTest());
            }
            return e;
        }

        private Expr andTest() throws Unsupported {
            Expr e = notTest();
            while (isName("and")) {
                pos++;
                e = new BoolOp(true, e, notTest());
            }
            return e;
        }

        private Expr notTest() throws Unsupported {
            if (!isName("not")) return comparison();
            pos++;
            enter();
            Expr e = new Not(notTest());
            nesting--;
            return e;
        }

        private Expr comparison() throws Unsupported {
            Expr first = binary(0);
            List<String> ops = new ArrayList<>();
            List<Expr> rest = new ArrayList<>();
            while (true) {
                Token t = peek();
                if (isName("in") || isName("is") || (isName("not") && tokens.get(pos + 1).text().equals("in"))) {
                    throw construct(keyword(t.text().equals("not") ? "in" : t.text(), false));
                }
                if (t.kind() != Kind.OP || !COMPARISONS.contains(t.text())) break;
                pos++;
                ops.add(t.text());
                rest.add(binary(0));
            }
            return ops.isEmpty() ? first : new Compare(first, List.copyOf(ops), List.copyOf(rest));
        }

        private Expr binary(int level) throws Unsupported {
            if (level == LEVELS.size()) return unary();
            Expr e = binary(level + 1);
            while (peek().kind() == Kind.OP && LEVELS.get(level).contains(peek().text())) {
                String op = tokens.get(pos++).text();
                if (op.equals("@")) throw construct("matrix multiplications (@) are");
                e = new Binary(op, e, binary(level + 1));
            }
            return e;
        }

        private Expr unary() throws Unsupported {
            if (isOp("-") || isOp("+") || isOp("~")) {
                String op = tokens.get(pos++).text();
                enter();
                Expr e = new Unary(op, unary());
                nesting--;
                return e;
            }
            Expr base = primary();
            if (!isOp("**")) return base;
            pos++;
            enter();
            Expr e = new Binary("**", base, unary());
            nesting--;
            return e;
        }

        private Expr primary() throws Unsupported {
            Token t = tokens.get(pos++);
            Expr e = switch (t.kind()) {
                case NUMBER -> new Const(t.value());
                case STRING -> throw construct("string literals other than a whole assert message are");
                case NAME -> {
                    if (t.text().equals("True") || t.text().equals("False")) yield new Const(t.text().equals("True"));
                    if (KEYWORDS.contains(t.text())) throw construct(keyword(t.text(), false));
                    yield isOp("(") ? call(t.text()) : new Name(t.text());
                }
                case OP -> switch (t.text()) {
                    case "(" -> {
                        enter();
                        if (isOp(")")) throw construct("tuples are");
                        Expr inner = expression();
                        expect(")");
                        nesting--;
                        yield inner;
                    }
                    case "[" -> throw construct("lists are");
                    case "{" -> throw construct("dicts and sets are");
                    case "..." -> throw construct("Ellipsis (...) is");
                    default -> throw unexpected(t);
                };
                case NEWLINE, END -> throw unexpected(t);
            };
            if (isOp(".")) throw construct("attribute accesses (x.y) are");
            if (isOp("[")) throw construct("subscripts (x[i]) are");
            if (isOp("(")) throw construct("calls other than abs(), min() and max() are");
            return e;
        }

        private Expr call(String function) throws Unsupported {
            if (!FUNCTIONS.contains(function)) {
                throw construct(function.equals("print") ? "print() calls are" : "calls to " + function + "() are");
            }
            pos++;
            enter();
            List<Expr> args = new ArrayList<>();
            while (!isOp(")")) {
                if (peek().kind() == Kind.NAME && tokens.get(pos + 1).text().equals("=")) {
                    throw construct("keyword arguments are");
                }
                if (isOp("*") || isOp("**")) throw construct("argument unpacking (*args) is");
                args.add(expression());
                if (!isOp(",")) break;
                pos++;
            }
            expect(")");
            nesting--;
            return new Call(function, List.copyOf(args));
        }

        private void expect(String op) throws Unsupported {
            if (!isOp(op)) throw unexpected(peek());
            pos++;
        }

        private void enter() throws Unsupported {
            if (++nesting > MAX_NESTING) throw construct("expressions nested more than " + MAX_NESTING + " deep are");
        }

        private Token peek() { return tokens.get(pos); }

        private boolean isOp(String op) { return peek().kind() == Kind.OP && peek().text().equals(op); }

        private boolean isName(String name) { return peek().kind() == Kind.NAME && peek().text().equals(name); }

        /** The source of the tokens from {@code start} to the current one, each run of spaces, newlines and comments one space. */
        private String text(int start) {
            StringBuilder s = new StringBuilder();
            for (int k = start; k < pos; k++) {
                if (k > start && tokens.get(k).start() > tokens.get(k - 1).end()) s.append(' ');
                s.append(tokens.get(k).text());
            }
            return s.toString();
        }

        /** The construct a token out of place starts, or a syntax error. */
        private Unsupported unexpected(Token t) {
            if (t.kind() == Kind.NAME && KEYWORDS.contains(t.text())) return construct(keyword(t.text(), false));
            if (t.kind() == Kind.STRING) return construct("string literals other than a whole assert message are");
            if (t.kind() == Kind.OP) {
                switch (t.text()) {
                    case "," -> { return construct("tuples are"); }
                    case "=" -> { return construct("assignments inside expressions are"); }
                    case ":=" -> { return construct("assignment expressions (:=) are"); }
                    case "[" -> { return construct("subscripts and lists are"); }
                    case "{" -> { return construct("dicts and sets are"); }
                    case "." -> { return construct("attribute accesses (x.y) are"); }
                    case ":" -> { return construct("colons (blocks, annotations, slices) are"); }
                    default -> {
                        if (AUGMENTED.contains(t.text())) return construct("augmented assignments are");
                    }
                }
            }
            String what = switch (t.kind()) {
                case NEWLINE -> "the line ends early";
                case END -> "the block ends early";
                default -> "unexpected '" + t.text() + "'";
            };
            return new Unsupported("cannot parse the %{ }% block as Python: " + what + " (line " + t.line()
                    + ", column " + t.column() + ")");
        }

        private static String keyword(String kw, boolean statement) {
            return switch (kw) {
                case "for" -> statement ? "'for' loops are" : "comprehensions ('for' in an expression) are";
                case "while" -> "'while' loops are";
                case "if", "elif", "else" -> statement ? "'if' statements are" : "conditional expressions (x if c else y) are";
                case "def" -> "function definitions ('def') are";
                case "class" -> "class definitions are";
                case "import", "from" -> "imports are";
                case "lambda" -> "lambdas are";
                case "in" -> "'in' tests are";
                case "is" -> "'is' tests are";
                case "None" -> "None is";
                default -> "'" + kw + "' is";
            };
        }
    }

    // ---------------------------------------------------------------- evaluation

    /** A Python exception (its type and message) raised while running a block. */
    private static final class PythonError extends Exception {
        PythonError(String type, String message) {
            super(type + ": " + message, null, false, false);
        }
    }

    /** Runs statements; values are Boolean, BigInteger, Double (Python's bool, int, float) and String (a message). */
    private static final class Interpreter {
        private final Function<String, Long> names;
        private final Map<String, Object> locals = new HashMap<>();
        /** The names read while evaluating an assert's test, in order, with their values. */
        private Map<String, Object> read;

        Interpreter(Function<String, Long> names) { this.names = names; }

        Result run(List<Stmt> program) throws Unsupported {
            for (Stmt s : program) {
                try {
                    switch (s) {
                        case Assign a -> locals.put(a.name(), eval(a.value(), 0));
                        case Eval x -> eval(x.expr(), 0);
                        case Assert a -> {
                            read = new LinkedHashMap<>();
                            boolean held = truthy(eval(a.test(), 0));
                            Map<String, Object> used = read;
                            read = null;
                            if (!held) return new Result(false, failure(a, used));
                        }
                    }
                } catch (PythonError e) {
                    return new Result(false, e.getMessage() + " (in: " + s.text() + ")");
                }
            }
            return new Result(true, "");
        }

        private String failure(Assert a, Map<String, Object> used) throws PythonError {
            StringBuilder m = new StringBuilder("assert ").append(a.testText()).append(" failed");
            if (!used.isEmpty()) {
                m.append(": ").append(used.entrySet().stream().map(e -> e.getKey() + " = " + str(e.getValue()))
                        .collect(Collectors.joining(", ")));
            }
            if (a.message() != null) {
                String text;
                try {
                    text = str(eval(a.message(), 0));
                } catch (Unsupported u) {
                    text = "not evaluated: " + u.getMessage(); // the assert failed either way
                }
                m.append(" (AssertionError: ").append(text).append(')');
            }
            return m.toString();
        }

        Object eval(Expr e, int depth) throws Unsupported, PythonError {
            if (depth > MAX_DEPTH) throw construct("expressions nested more than " + MAX_DEPTH + " deep are");
            int d = depth + 1;
            return switch (e) {
                case Const c -> c.value();
                case Str s -> s.text();
                case Name n -> lookup(n.name());
                case Not n -> !truthy(eval(n.operand(), d));
                case BoolOp b -> {
                    Object left = eval(b.left(), d);
                    yield truthy(left) == b.isAnd() ? eval(b.right(), d) : left;
                }
                case Unary u -> unary(u.op(), eval(u.operand(), d));
                case Binary b -> binary(b.op(), eval(b.left(), d), eval(b.right(), d));
                case Compare c -> {
                    Object left = eval(c.first(), d);
                    for (int k = 0; k < c.ops().size(); k++) {
                        Object right = eval(c.rest().get(k), d);
                        if (!compare(c.ops().get(k), left, right)) yield false;
                        left = right;
                    }
                    yield true;
                }
                case Call c -> {
                    List<Object> args = new ArrayList<>();
                    for (Expr a : c.args()) args.add(eval(a, d));
                    yield call(c.function(), args);
                }
            };
        }

        private Object lookup(String name) throws Unsupported {
            Object v = locals.get(name);
            if (v == null) {
                Long raw = names.apply(name);
                if (raw == null) throw new Unsupported("unknown name '" + name + "' in a %{ }% block");
                v = raw >= 0 ? BigInteger.valueOf(raw) : BigInteger.valueOf(raw).add(BigInteger.ONE.shiftLeft(64));
            }
            if (read != null) read.putIfAbsent(name, v);
            return v;
        }
    }

    private static Object call(String function, List<Object> args) throws PythonError {
        if (function.equals("abs")) {
            if (args.size() != 1) throw typeError("abs() takes exactly one argument (" + args.size() + " given)");
            return args.getFirst() instanceof Double x ? (Object) Math.abs(x) : integer(args.getFirst()).abs();
        }
        if (args.isEmpty()) throw typeError(function + " expected at least 1 argument, got 0");
        if (args.size() == 1) throw typeError("'" + typeName(args.getFirst()) + "' object is not iterable");
        Object best = args.getFirst();
        for (Object v : args.subList(1, args.size())) {
            if (compare(function.equals("min") ? "<" : ">", v, best)) best = v;
        }
        return best;
    }

    private static Object unary(String op, Object v) throws PythonError {
        if (v instanceof Double x) {
            return switch (op) {
                case "-" -> -x;
                case "+" -> x;
                default -> throw typeError("bad operand type for unary ~: 'float'");
            };
        }
        BigInteger i = integer(v);
        return switch (op) {
            case "-" -> i.negate();
            case "+" -> i;
            default -> i.not();
        };
    }

    private static Object binary(String op, Object a, Object b) throws PythonError, Unsupported {
        boolean floats = a instanceof Double || b instanceof Double;
        switch (op) {
            case "&", "|", "^", "<<", ">>" -> {
                if (floats) {
                    throw typeError("unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '"
                            + typeName(b) + "'");
                }
                if (op.length() == 2) return shift(op.equals("<<"), integer(a), integer(b));
                if (a instanceof Boolean x && b instanceof Boolean y) { // bool & bool is a bool
                    return switch (op) {
                        case "&" -> x & y;
                        case "|" -> x | y;
                        default -> x ^ y;
                    };
                }
                return switch (op) {
                    case "&" -> integer(a).and(integer(b));
                    case "|" -> integer(a).or(integer(b));
                    default -> integer(a).xor(integer(b));
                };
            }
            case "**" -> {
                if (floats) throw construct("'**' with a float is");
                return power(integer(a), integer(b));
            }
            default -> {
                if (floats) return floatArithmetic(op, toFloat(a), toFloat(b));
                BigInteger x = integer(a);
                BigInteger y = integer(b);
                return switch (op) {
                    case "+" -> checked(x.add(y));
                    case "-" -> checked(x.subtract(y));
                    case "*" -> checked(x.multiply(y));
                    case "/" -> trueDivide(x, y);
                    case "//" -> floorDivMod(x, y, "integer division or modulo by zero")[0];
                    default -> floorDivMod(x, y, "integer modulo by zero")[1];
                };
            }
        }
    }

    private static BigInteger shift(boolean left, BigInteger x, BigInteger count) throws PythonError, Unsupported {
        if (count.signum() < 0) throw new PythonError("ValueError", "negative shift count");
        if (!left) {
            if (count.bitLength() > 31) return x.signum() < 0 ? BigInteger.ONE.negate() : BigInteger.ZERO;
            return x.shiftRight(count.intValue());
        }
        if (x.signum() == 0) return x;
        if (count.compareTo(BigInteger.valueOf(MAX_BITS)) > 0) throw tooBig();
        return checked(x.shiftLeft(count.intValue()));
    }

    private static BigInteger power(BigInteger base, BigInteger exponent) throws Unsupported {
        if (exponent.signum() < 0) throw construct("'**' with a negative exponent is");
        if (base.abs().compareTo(BigInteger.ONE) <= 0) {
            if (base.signum() == 0) return exponent.signum() == 0 ? BigInteger.ONE : BigInteger.ZERO;
            return base.signum() > 0 || !exponent.testBit(0) ? BigInteger.ONE : base;
        }
        if (exponent.compareTo(BigInteger.valueOf(MAX_BITS)) > 0
                || (long) (base.abs().bitLength() - 1) * exponent.intValue() > MAX_BITS) {
            throw tooBig();
        }
        return checked(base.pow(exponent.intValue()));
    }

    /** Python's {@code //} and {@code %} on ints: the quotient rounded down, the remainder with the divisor's sign. */
    private static BigInteger[] floorDivMod(BigInteger x, BigInteger y, String byZero) throws PythonError {
        if (y.signum() == 0) throw new PythonError("ZeroDivisionError", byZero);
        BigInteger[] qr = x.divideAndRemainder(y);
        if (qr[1].signum() != 0 && qr[1].signum() != y.signum()) {
            qr[0] = qr[0].subtract(BigInteger.ONE);
            qr[1] = qr[1].add(y);
        }
        return qr;
    }

    private static double floatArithmetic(String op, double x, double y) throws PythonError {
        return switch (op) {
            case "+" -> x + y;
            case "-" -> x - y;
            case "*" -> x * y;
            case "/" -> {
                if (y == 0) throw new PythonError("ZeroDivisionError", "float division by zero");
                yield x / y;
            }
            case "//" -> {
                if (y == 0) throw new PythonError("ZeroDivisionError", "float floor division by zero");
                yield floatDivMod(x, y)[0];
            }
            default -> {
                if (y == 0) throw new PythonError("ZeroDivisionError", "float modulo");
                yield floatDivMod(x, y)[1];
            }
        };
    }

    /** Python's floor division and modulo of floats (as CPython computes them, from the C remainder). */
    private static double[] floatDivMod(double x, double y) {
        double mod = x % y; // C's fmod: the sign of x
        double div = (x - mod) / y;
        if (mod != 0) {
            if ((y < 0) != (mod < 0)) {
                mod += y;
                div -= 1.0;
            }
        } else {
            mod = Math.copySign(0.0, y);
        }
        double floor;
        if (div != 0) {
            floor = Math.floor(div);
            if (div - floor > 0.5) floor += 1.0;
        } else {
            floor = Math.copySign(0.0, x / y);
        }
        return new double[] {floor, mod};
    }

    /** Python's {@code int / int}: the exact quotient rounded once to the nearest float (ties to even). */
    private static double trueDivide(BigInteger x, BigInteger y) throws PythonError {
        if (y.signum() == 0) throw new PythonError("ZeroDivisionError", "division by zero");
        if (x.abs().bitLength() <= 53 && y.abs().bitLength() <= 53) return x.doubleValue() / y.doubleValue();
        boolean negative = (x.signum() < 0) != (y.signum() < 0);
        BigInteger num = x.abs();
        BigInteger den = y.abs();
        if (num.signum() == 0) return negative ? -0.0 : 0.0;
        // q = floor(num * 2^shift / den) has 60 or 61 bits; sticky records a non-zero remainder below it.
        int shift = 60 - (num.bitLength() - den.bitLength());
        BigInteger[] qr = shift >= 0 ? num.shiftLeft(shift).divideAndRemainder(den)
                : num.divideAndRemainder(den.shiftLeft(-shift));
        BigInteger q = qr[0];
        boolean sticky = qr[1].signum() != 0;
        int top = q.bitLength() - 1 - shift; // the quotient is in [2^top, 2^(top+1))
        if (top > 1023) throw new PythonError("OverflowError", "integer division result too large for a float");
        int ulp = Math.max(top - 52, -1074); // the exponent of the result's last bit (subnormals keep fewer)
        int drop = ulp + shift;
        BigInteger m = q.shiftRight(drop);
        int half = q.subtract(m.shiftLeft(drop)).compareTo(BigInteger.ONE.shiftLeft(drop - 1));
        if (half > 0 || (half == 0 && (sticky || m.testBit(0)))) m = m.add(BigInteger.ONE);
        double r = Math.scalb(m.doubleValue(), ulp);
        if (Double.isInfinite(r)) throw new PythonError("OverflowError", "integer division result too large for a float");
        return negative ? -r : r;
    }

    private static boolean compare(String op, Object a, Object b) throws PythonError {
        int c;
        if (a instanceof Double || b instanceof Double) {
            if (a instanceof Double x && x.isNaN() || b instanceof Double y && y.isNaN()) return op.equals("!=");
            c = compareWithFloat(a, b);
        } else {
            c = integer(a).compareTo(integer(b));
        }
        return switch (op) {
            case "==" -> c == 0;
            case "!=" -> c != 0;
            case "<" -> c < 0;
            case "<=" -> c <= 0;
            case ">" -> c > 0;
            default -> c >= 0;
        };
    }

    /** Compares numbers, one a float, exactly (as Python does: no rounding of a large int). */
    private static int compareWithFloat(Object a, Object b) throws PythonError {
        if (a instanceof Double x && b instanceof Double y) return x < y ? -1 : x > y ? 1 : 0;
        if (b instanceof Double) return -compareWithFloat(b, a);
        double x = (Double) a;
        if (Double.isInfinite(x)) return x > 0 ? 1 : -1;
        return new BigDecimal(x).compareTo(new BigDecimal(integer(b)));
    }

    private static boolean truthy(Object v) {
        return switch (v) {
            case Boolean b -> b;
            case BigInteger i -> i.signum() != 0;
            case Double d -> d != 0;
            default -> !v.toString().isEmpty();
        };
    }

    private static BigInteger integer(Object v) throws PythonError {
        return switch (v) {
            case BigInteger i -> i;
            case Boolean b -> b ? BigInteger.ONE : BigInteger.ZERO;
            default -> throw typeError("'" + typeName(v) + "' object cannot be interpreted as an integer");
        };
    }

    private static double toFloat(Object v) throws PythonError {
        if (v instanceof Double d) return d;
        double d = integer(v).doubleValue(); // rounded to nearest, ties to even, as Python does
        if (Double.isInfinite(d)) throw new PythonError("OverflowError", "int too large to convert to float");
        return d;
    }

    private static BigInteger checked(BigInteger i) throws Unsupported {
        if (i.bitLength() > MAX_BITS) throw tooBig();
        return i;
    }

    private static Unsupported tooBig() {
        return construct("integers of more than " + MAX_BITS + " bits are");
    }

    private static PythonError typeError(String message) {
        return new PythonError("TypeError", message);
    }

    private static String typeName(Object v) {
        return switch (v) {
            case Boolean _ -> "bool";
            case BigInteger _ -> "int";
            case Double _ -> "float";
            default -> "str";
        };
    }

    /** Python's {@code str} of a value (for numbers also its {@code repr}). */
    static String str(Object v) {
        return switch (v) {
            case Boolean b -> b ? "True" : "False";
            case Double d -> floatRepr(d);
            default -> v.toString();
        };
    }

    /**
     * Java gives two digits where one would do if two are nearer ({@code 4.9E-324}); Python takes the shortest
     * ({@code 5e-324}): the one-digit decimal nearest {@code d} if one reads back as it.
     */
    private static BigDecimal oneDigit(double d, BigDecimal twoDigits) {
        BigDecimal exact = new BigDecimal(d);
        BigDecimal best = twoDigits;
        for (RoundingMode mode : List.of(RoundingMode.FLOOR, RoundingMode.CEILING)) {
            BigDecimal one = twoDigits.round(new MathContext(1, mode));
            if (Double.parseDouble(one.toString()) == d
                    && (best == twoDigits || one.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                best = one;
            }
        }
        return best.stripTrailingZeros();
    }

    /**
     * Python's {@code repr} of a float: the shortest digits that read back as it (Java's too), positional when the
     * decimal exponent is from -4 to 16 ({@code 0.0001}, {@code 1e+16}).
     */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) return "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        if (d == 0) return 1 / d < 0 ? "-0.0" : "0.0";
        BigDecimal shortest = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        if (shortest.precision() == 2) shortest = oneDigit(Math.abs(d), shortest);
        String digits = shortest.unscaledValue().toString();
        int point = digits.length() - shortest.scale(); // the value is 0.DIGITS * 10^point
        String s;
        if (point > -4 && point <= 16) {
            if (point <= 0) s = "0." + "0".repeat(-point) + digits;
            else if (point >= digits.length()) s = digits + "0".repeat(point - digits.length()) + ".0";
            else s = digits.substring(0, point) + "." + digits.substring(point);
        } else {
            int exponent = point - 1;
            s = (digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1)) + "e"
                    + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return d < 0 ? "-" + s : s;
    }
}
