package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parses a script in packetdrill's language (its {@code parser.y} and {@code lexer.l}) into a {@link Script}.
 *
 * <p>A script is: option lines ({@code --name=value}), an optional init command ({@code `...`} without a time),
 * events (a time, then a packet line, a system call, a {@code `command`} or a {@code %{ code }%} block), and an
 * optional cleanup command. Comments ({@code //}, {@code /* *}{@code /}) and blank lines are skipped. The parser
 * applies packetdrill's parse-time checks (negative times, backwards ranges, {@code *} and ranges only for outbound
 * packets, number ranges, sequence numbers against payload lengths, flags, cookies ...). Symbols defined by
 * {@code --define=NAME=VALUE} options, and those given to {@link #parse(String, String, Map)}, are replaced in the
 * events as packetdrill's lexer does.
 *
 * <p>Constructs of packetdrill that jnet drill cannot play (IPv6, GRE, MPLS and PSP encapsulations, IPv6 addresses
 * in packets and system calls, SCTP, MPTCP options, MPLS and GRE expressions, packet fuzzing) are refused with a
 * {@link DrillParseException} whose reason starts with {@code not supported by jnet drill:}. Option values (an IPv6
 * {@code --local_ip}) and symbols ({@code AF_INET6}) are kept as text for the player to judge. No I/O: the parser
 * reads only the text it is given.
 */
public final class DrillParser {
    private final TokenStream in;
    private final Map<String, String> defines;
    private final ExprParser exprs;
    private final PacketParser packets;

    private DrillParser(TokenStream in, Map<String, String> defines) {
        this.in = in;
        this.defines = new LinkedHashMap<>(defines);
        this.exprs = new ExprParser(in);
        this.packets = new PacketParser(in);
    }

    /**
     * Parses a whole script.
     *
     * @param fileName the script's name, for messages only
     * @param text the script
     * @return its syntax tree
     * @throws DrillParseException for any text that is not a script jnet drill can read, with the file, line and
     *     column of the problem; never another exception for any text
     * @throws NullPointerException when an argument is null
     */
    public static Script parse(String fileName, String text) throws DrillParseException {
        return parse(fileName, text, Map.of());
    }

    /**
     * Parses a whole script with symbols defined beforehand, as packetdrill's {@code -D NAME=VALUE} (the script's own
     * {@code --define} options override them).
     *
     * @param defines symbol names to their values ({@code 8080}, {@code "text"}, {@code `command`}, a word)
     * @throws DrillParseException as {@link #parse(String, String)}
     */
    public static Script parse(String fileName, String text, Map<String, String> defines) throws DrillParseException {
        Objects.requireNonNull(fileName, "fileName");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(defines, "defines");
        List<Token> tokens = new DrillLexer(fileName, text).tokenize();
        return new DrillParser(new TokenStream(fileName, tokens), defines).script();
    }

    private Script script() throws DrillParseException {
        List<ScriptOption> options = new ArrayList<>();
        while (in.at(Kind.OPTION)) options.add(option());
        in.expand(defines);
        Optional<Command> init = Optional.empty();
        if (in.at(Kind.BACK_QUOTED)) init = Optional.of(command());
        List<Event> events = new ArrayList<>();
        Optional<Command> cleanup = Optional.empty();
        while (!in.atEnd()) {
            if (in.at(Kind.BACK_QUOTED)) {
                Token t = in.peek();
                cleanup = Optional.of(command());
                if (!in.atEnd() || events.isEmpty()) {
                    throw in.error(t, "a `command` needs a time (like +0 `...`), except as the init command before "
                        + "the first event or the cleanup command after the last");
                }
            } else if (in.at(Kind.OPTION)) {
                throw in.error(in.peek(), "options (--name=value) must come before the first event");
            } else {
                events.add(event());
            }
        }
        if (events.isEmpty()) throw in.error(in.peek(), "a script needs at least one event (like 0 socket(...) = 3)");
        return new Script(in.file(), options, init, events, cleanup);
    }

    private ScriptOption option() throws DrillParseException {
        Token name = in.next();
        if (!in.atChar('=')) return new ScriptOption(name.pos(), name.text(), Optional.empty());
        in.next();
        Token v = in.peek();
        String value;
        switch (v.kind()) {
            case INTEGER, HEX_INTEGER, FLOAT, STRING, IPV4_ADDR, IPV6_ADDR -> value = in.next().text();
            case WORD -> {
                value = in.next().text();
                if (in.atChar('=')) {
                    in.next();
                    value += "=" + defineValue();
                    if (name.text().equals("define")) define(value);
                }
            }
            default -> throw in.expected("a value after '--" + name.text() + "='");
        }
        return new ScriptOption(name.pos(), name.text(), Optional.of(value));
    }

    /** The VALUE of {@code NAME=VALUE}, a quoted one keeping its quotes as packetdrill does. */
    private String defineValue() throws DrillParseException {
        Token t = in.peek();
        return switch (t.kind()) {
            case WORD, INTEGER, HEX_INTEGER, FLOAT, IPV4_ADDR -> in.next().text();
            case STRING -> "\"" + in.next().text() + "\"";
            case BACK_QUOTED -> "`" + in.next().text() + "`";
            default -> throw in.expected("a value after NAME=");
        };
    }

    private void define(String nameEqualsValue) {
        int eq = nameEqualsValue.indexOf('=');
        defines.put(nameEqualsValue.substring(0, eq), nameEqualsValue.substring(eq + 1));
    }

    private Command command() {
        Token t = in.next();
        return new Command(t.pos(), t.text());
    }

    private Event event() throws DrillParseException {
        EventTime time = time();
        Token start = in.peek();
        Action action;
        if (start.isChar('<') || start.isChar('>')) {
            action = packets.parse();
        } else if (start.kind() == Kind.BACK_QUOTED) {
            action = command();
        } else if (start.kind() == Kind.CODE) {
            in.next();
            action = new Code(start.pos(), start.text());
        } else if (start.kind() == Kind.WORD || start.kind() == Kind.ELLIPSIS) {
            action = syscall();
        } else {
            throw in.expected("a packet ('<' or '>'), a system call, a `command` or a %{ code }% block after the time");
        }
        boolean outboundPacket = action instanceof Packet p && p.direction() == Direction.OUTBOUND;
        if (time instanceof EventTime.Any && !outboundPacket) {
            throw in.error(time.pos(), "event time * can only be used with outbound packets");
        }
        if ((time instanceof EventTime.AbsoluteRange || time instanceof EventTime.RelativeRange) && !outboundPacket) {
            throw in.error(time.pos(), "an event time range can only be used with outbound packets");
        }
        checkEventEnd(action);
        return new Event(time.pos(), time, action);
    }

    /** The next token must start another event, be the cleanup command or end the script. */
    private void checkEventEnd(Action action) throws DrillParseException {
        Token t = in.peek();
        boolean next = t.kind() == Kind.EOF || t.kind() == Kind.BACK_QUOTED || t.kind() == Kind.OPTION || t.kind() == Kind.INTEGER
            || t.kind() == Kind.FLOAT || t.isChar('+') || t.isChar('*');
        if (next) return;
        String what = switch (action) {
            case Packet p -> "packet";
            case Syscall s -> "system call";
            case Command c -> "command";
            case Code c -> "code block";
        };
        if (t.pos().line() == in.previous().endLine()) {
            throw in.error(t, "unexpected " + t.describe() + " after the " + what);
        }
        throw in.expected("an event time (like 0.100, +0.1 or *) to start the next event");
    }

    private EventTime time() throws DrillParseException {
        Token t = in.peek();
        if (t.isChar('*')) {
            in.next();
            return new EventTime.Any(t.pos());
        }
        if (t.isChar('+')) {
            in.next();
            long start = timeValue("a time after '+'");
            if (!in.atChar('~')) return new EventTime.Relative(t.pos(), start);
            in.next();
            if (!in.atChar('+')) throw in.expected("'+' before the end of a relative time range (+0.1~+0.2)");
            in.next();
            long end = timeValue("the end of the time range");
            if (end < start) throw in.error(t, "time range is backwards");
            return new EventTime.RelativeRange(t.pos(), start, end);
        }
        if (t.kind() != Kind.INTEGER && t.kind() != Kind.FLOAT) {
            throw in.expected("an event time (like 0.100, +0.1 or *)");
        }
        long start = timeValue("an event time");
        if (!in.atChar('~')) return new EventTime.Absolute(t.pos(), start);
        in.next();
        if (in.atChar('+')) throw in.error(in.peek(), "an absolute time range ends with an absolute time (0.1~0.2)");
        long end = timeValue("the end of the time range");
        if (end < start) throw in.error(t, "time range is backwards");
        return new EventTime.AbsoluteRange(t.pos(), start, end);
    }

    /** A time in seconds as microseconds. */
    private long timeValue(String what) throws DrillParseException {
        Token t = in.peek();
        if (t.kind() != Kind.INTEGER && t.kind() != Kind.FLOAT) throw in.expected(what + " in seconds");
        in.next();
        long micros = Seconds.toMicros(t.text());
        if (micros == -1) throw in.error(t, "negative time " + t.text());
        if (micros < 0) throw in.error(t, "time " + t.text() + " out of range");
        return micros;
    }

    private Syscall syscall() throws DrillParseException {
        Token start = in.peek();
        OptionalLong end = OptionalLong.empty();
        if (start.kind() == Kind.ELLIPSIS) {
            in.next();
            end = OptionalLong.of(timeValue("the time the blocking call returns after '...'"));
        }
        Token name = in.expect(Kind.WORD, "a system call name");
        in.expectChar('(', "after system call name '" + name.text() + "'");
        List<Expr> args = new ArrayList<>();
        if (in.atChar(')')) {
            in.next();
        } else {
            while (true) {
                args.add(exprs.parse());
                if (in.atChar(',')) {
                    in.next();
                } else if (in.atChar(')')) {
                    in.next();
                    break;
                } else {
                    throw in.expected("')' after syscall arguments");
                }
            }
        }
        in.expectChar('=', "and the expected result after " + name.text() + "(...)");
        Expr result = exprs.parse();
        Optional<Errno> errno = Optional.empty();
        if (in.at(Kind.WORD)) {
            Token e = in.next();
            Optional<String> text = in.atChar('(') ? Optional.of(note()) : Optional.empty();
            errno = Optional.of(new Errno(e.pos(), e.text(), text));
        }
        Optional<String> note = in.atChar('(') ? Optional.of(note()) : Optional.empty();
        return new Syscall(start.pos(), end, name.text(), args, result, errno, note);
    }

    /**
     * {@code (words ...)}: words, numbers and punctuation up to the closing parenthesis, as written but with any
     * run of spaces or line breaks between them made one space (packetdrill's notes take words only).
     */
    private String note() throws DrillParseException {
        in.next();
        StringBuilder b = new StringBuilder();
        Token last = null;
        while (!in.atChar(')')) {
            Token t = in.peek();
            boolean word = switch (t.kind()) {
                case WORD, INTEGER, HEX_INTEGER, FLOAT, IPV4_ADDR -> true;
                case CHAR -> ",.:;'/!?&#@-|=+*<>[]{}".indexOf(t.text().charAt(0)) >= 0;
                default -> false;
            };
            if (!word) throw in.expected("')' to end the note");
            in.next();
            boolean adjacent = last != null && last.pos().line() == t.pos().line()
                && last.pos().column() + last.text().length() == t.pos().column();
            if (last != null && !adjacent) b.append(' ');
            b.append(t.text());
            last = t;
        }
        in.next();
        return b.toString();
    }
}
