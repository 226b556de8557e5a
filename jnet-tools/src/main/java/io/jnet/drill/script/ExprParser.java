package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses the expressions of system call arguments and results (packetdrill's {@code expression} rule) into generic
 * {@link Expr} trees: numbers, {@code ...}, names, strings, {@code |}, {@code name=value}, {@code name(args)},
 * {@code [..]} and {@code {..}}. Nesting deeper than {@link #MAX_DEPTH} (brackets, braces, calls, fields and
 * {@code |} operands together) is refused, so that every tree renders and compares without deep recursion.
 */
final class ExprParser {
    /** The deepest nesting of brackets, braces and calls taken. */
    static final int MAX_DEPTH = 100;

    private final TokenStream in;

    ExprParser(TokenStream in) {
        this.in = in;
    }

    /** One expression, {@code |} chains included. */
    Expr parse() throws DrillParseException {
        return parse(0);
    }

    /** An expression at nesting {@code depth}; each {@code |} of a chain nests one level more (the tree is left-deep). */
    private Expr parse(int depth) throws DrillParseException {
        checkDepth(depth);
        Expr left = primary(depth);
        int chain = depth;
        while (in.atChar('|')) {
            in.next();
            checkDepth(++chain);
            Expr right = primary(chain);
            left = new Expr.BinaryOr(left.pos(), left, right);
        }
        return left;
    }

    private void checkDepth(int depth) throws DrillParseException {
        if (depth > MAX_DEPTH) throw in.error(in.peek(), "expression nested too deeply (over " + MAX_DEPTH + " levels)");
    }

    private Expr primary(int depth) throws DrillParseException {
        Token t = in.peek();
        switch (t.kind()) {
            case ELLIPSIS -> {
                in.next();
                return new Expr.Ellipsis(t.pos());
            }
            case INTEGER, HEX_INTEGER -> {
                in.next();
                return new Expr.Int(t.pos(), Numbers.value(in, t), t.kind() == Kind.HEX_INTEGER);
            }
            case STRING -> {
                return string();
            }
            case WORD -> {
                return word(depth);
            }
            case CHAR -> {
                if (t.isChar('[')) {
                    in.next();
                    return new Expr.Array(t.pos(), list(']', "array", depth));
                }
                if (t.isChar('{')) return struct(depth);
            }
            default -> { }
        }
        throw in.expected("an expression (a number, ..., a name, a \"string\", [array] or {struct})");
    }

    private Expr string() {
        Token first = in.next();
        StringBuilder value = new StringBuilder(first.text());
        while (in.at(Kind.STRING)) value.append(in.next().text());
        boolean truncated = in.at(Kind.ELLIPSIS);
        if (truncated) in.next();
        return new Expr.Str(first.pos(), value.toString(), truncated);
    }

    private Expr word(int depth) throws DrillParseException {
        Token name = in.next();
        if (in.atChar('=')) {
            in.next();
            return new Expr.Field(name.pos(), name.text(), Optional.empty(), parse(depth + 1));
        }
        if (!in.atChar('(')) return new Expr.Symbol(name.pos(), name.text());
        if (name.text().equals("inet6_addr")) throw in.unsupported(name, "IPv6 addresses (inet6_addr)");
        in.next();
        List<Expr> args = list(')', "the arguments of " + name.text() + "(...)", depth);
        if (!in.atChar('=')) return new Expr.Call(name.pos(), name.text(), args);
        Token eq = in.next();
        if (args.size() != 1) {
            throw in.error(eq, "expected one length in " + name.text() + "(length)=..., found " + args.size());
        }
        return new Expr.Field(name.pos(), name.text(), Optional.of(args.get(0)), parse(depth + 1));
    }

    private Expr struct(int depth) throws DrillParseException {
        Token open = in.next();
        if (in.atChar('(')) throw in.unsupported(open, "MPLS label stack expressions");
        if ((in.atWord("flags") || in.atWord("Flags")) && !in.peek(1).isChar('=')) {
            throw in.unsupported(open, "GRE header expressions");
        }
        return new Expr.Struct(open.pos(), list('}', "struct", depth));
    }

    /** Expressions separated by commas up to {@code close} (taken), the opening one already taken; may be empty. */
    private List<Expr> list(char close, String what, int depth) throws DrillParseException {
        List<Expr> out = new ArrayList<>();
        if (in.atChar(close)) {
            in.next();
            return out;
        }
        while (true) {
            out.add(parse(depth + 1));
            if (in.atChar(',')) {
                in.next();
            } else if (in.atChar(close)) {
                in.next();
                return out;
            } else {
                throw in.expected("',' or '" + close + "' in " + what);
            }
        }
    }
}
