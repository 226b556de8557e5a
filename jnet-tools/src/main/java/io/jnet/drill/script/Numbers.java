package io.jnet.drill.script;

import io.jnet.drill.script.Token.Kind;

/** Reads number tokens into ranged values, with a parse error for a value out of its range. */
final class Numbers {
    private Numbers() {}

    static final long U8 = 0xffL;
    static final long U16 = 0xffffL;
    static final long U20 = 0xfffffL;
    static final long U24 = 0xffffffL;
    static final long U32 = 0xffffffffL;

    /**
     * Takes an integer token (decimal, or hex when {@code hexToo}) in 0..max.
     *
     * @param what its name in messages, e.g. {@code TCP window}
     */
    static long take(TokenStream in, String what, long max, boolean hexToo) throws DrillParseException {
        Token t = in.peek();
        if (!(t.kind() == Kind.INTEGER || hexToo && t.kind() == Kind.HEX_INTEGER)) {
            throw in.expected("a number for the " + what);
        }
        in.next();
        long v = value(in, t);
        if (v < 0 || v > max) {
            throw in.error(t, what + " " + t.text() + " out of range (0.." + max + ")");
        }
        return v;
    }

    /** A number token's value: decimal signed 64 bits, hex unsigned 64 bits. */
    static long value(TokenStream in, Token t) throws DrillParseException {
        try {
            if (t.kind() == Kind.HEX_INTEGER) {
                String digits = t.text().substring(2);
                if (digits.length() > 16) throw new NumberFormatException();
                return Long.parseUnsignedLong(digits, 16);
            }
            return Long.parseLong(t.text());
        } catch (NumberFormatException e) {
            throw in.error(t, "number " + t.text() + " out of range (64 bits)");
        }
    }
}
