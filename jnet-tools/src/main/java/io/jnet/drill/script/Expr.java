package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An expression in a system call's arguments or result, kept generic (the player interprets it by place): numbers,
 * {@code ...}, symbols ({@code AF_INET}, {@code O_NONBLOCK}), {@code |} of them, strings, arrays {@code [1]},
 * structs {@code {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("192.0.2.1")}} whose members are
 * usually {@link Field}s, and calls {@code htons(8080)}.
 */
public sealed interface Expr {

    /** Where the expression starts. */
    SourcePos pos();

    /** In packetdrill's syntax. */
    String render();

    /**
     * An integer: {@code 3}, {@code -1}, {@code 0x10}.
     *
     * @param value its value (hex up to 64 bits, read unsigned)
     * @param hex whether it was written in hex
     */
    record Int(SourcePos pos, long value, boolean hex) implements Expr {
        @Override public String render() { return hex ? "0x" + Long.toHexString(value) : Long.toString(value); }
        @Override public String toString() { return render(); }
    }

    /** {@code ...}: any value (in a result or an output argument), or "whatever the player supplies" (an input). */
    record Ellipsis(SourcePos pos) implements Expr {
        @Override public String render() { return "..."; }
        @Override public String toString() { return render(); }
    }

    /** A name: {@code AF_INET}, {@code SOCK_STREAM}, {@code POLLIN}, a define's unexpanded word. */
    record Symbol(SourcePos pos, String name) implements Expr {
        @Override public String render() { return name; }
        @Override public String toString() { return render(); }
    }

    /**
     * A string: {@code "GET / HTTP/1.1"}, {@code "abc"...}.
     *
     * @param value the text between the quotes as written (backslash escapes kept; adjacent strings joined)
     * @param truncated whether {@code ...} follows it (packetdrill: the data starts with this text)
     */
    record Str(SourcePos pos, String value, boolean truncated) implements Expr {
        @Override public String render() { return "\"" + value + "\"" + (truncated ? "..." : ""); }
        @Override public String toString() { return render(); }
    }

    /** {@code left|right}: bitwise or ({@code O_RDWR|O_NONBLOCK}); left-associative. */
    record BinaryOr(SourcePos pos, Expr left, Expr right) implements Expr {
        @Override public String render() { return left.render() + "|" + right.render(); }
        @Override public String toString() { return render(); }
    }

    /** {@code [a, b]}: an array, e.g. an int option value {@code [1]} or an iovec list; may be empty. */
    record Array(SourcePos pos, List<Expr> elements) implements Expr {
        public Array {
            elements = List.copyOf(elements);
        }

        @Override public String render() { return "[" + join(elements) + "]"; }
        @Override public String toString() { return render(); }
    }

    /**
     * {@code {a=1, b=2}}: a struct, members usually {@link Field}s ({@code {l_onoff=1, l_linger=0}},
     * {@code {fd=4, events=POLLIN}}, {@code {msg_name(...)=..., msg_iov(1)=[...], msg_flags=0}}), or positional
     * ({@code {..., 1000}} for an iovec in older scripts).
     */
    record Struct(SourcePos pos, List<Expr> members) implements Expr {
        public Struct {
            members = List.copyOf(members);
        }

        /** The value of the field named {@code name}, if the struct has one. */
        public Optional<Expr> field(String name) {
            for (Expr m : members) {
                if (m instanceof Field f && f.name().equals(name)) return Optional.of(f.value());
            }
            return Optional.empty();
        }

        @Override public String render() { return "{" + join(members) + "}"; }
        @Override public String toString() { return render(); }
    }

    /** {@code name(args)}: {@code htons(8080)}, {@code inet_addr("192.0.2.1")}. */
    record Call(SourcePos pos, String function, List<Expr> arguments) implements Expr {
        public Call {
            arguments = List.copyOf(arguments);
        }

        @Override public String render() { return function + "(" + join(arguments) + ")"; }
        @Override public String toString() { return render(); }
    }

    /**
     * {@code name=value}, or {@code name(length)=value} as msghdr's {@code msg_iov(1)=[...]} and
     * {@code msg_name(...)=...}: a struct member, or an assignment anywhere packetdrill takes one.
     */
    record Field(SourcePos pos, String name, Optional<Expr> length, Expr value) implements Expr {
        @Override public String render() {
            return name + length.map(l -> "(" + l.render() + ")").orElse("") + "=" + value.render();
        }
        @Override public String toString() { return render(); }
    }

    private static String join(List<Expr> list) {
        return list.stream().map(Expr::render).collect(Collectors.joining(", "));
    }
}
