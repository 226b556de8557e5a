package io.jnet.drill.play;

import io.jnet.drill.script.Expr;
import io.jnet.drill.target.LinuxConstants;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;

/** Evaluates a script's expressions to numbers and addresses: Linux symbols, {@code |}, {@code htons}, {@code inet_addr}. */
final class Values {
    private final Map<String, String> defines;

    /** @param defines {@code -D NAME=value} definitions, consulted before Linux's symbols */
    Values(Map<String, String> defines) { this.defines = defines; }

    /** The integer value of {@code e}. */
    long number(Expr e) throws PlayException, Unsupported {
        return switch (e) {
            case Expr.Int i -> i.value();
            case Expr.Symbol s -> symbol(s);
            case Expr.BinaryOr o -> number(o.left()) | number(o.right());
            case Expr.Array a when a.elements().size() == 1 -> number(a.elements().getFirst());
            // packetdrill: the value in network byte order, its argument range-checked
            case Expr.Call c when isByteOrderCall(c) -> c.function().equals("htons")
                    ? Short.toUnsignedLong(Short.reverseBytes((short) hostValue(c)))
                    : Integer.toUnsignedLong(Integer.reverseBytes((int) hostValue(c)));
            default -> throw new PlayException(e.pos().line(), "expected a number, found " + e.render());
        };
    }

    private static boolean isByteOrderCall(Expr.Call c) {
        return (c.function().equals("htons") || c.function().equals("htonl")) && c.arguments().size() == 1;
    }

    /**
     * The host-order value of {@code e}: the argument of {@code htons(...)} / {@code htonl(...)} (checked to fit 16
     * or 32 bits unsigned), or {@code e}'s own value. Socket address fields take ports and addresses this way.
     */
    long hostValue(Expr e) throws PlayException, Unsupported {
        if (!(e instanceof Expr.Call c && isByteOrderCall(c))) return number(e);
        long v = number(c.arguments().getFirst());
        long max = c.function().equals("htons") ? 0xffffL : 0xffffffffL;
        if (v < 0 || v > max) {
            throw new PlayException(e.pos().line(), c.function() + "(" + v + "): out of range (0 to " + max + ")");
        }
        return v;
    }

    private long symbol(Expr.Symbol s) throws Unsupported {
        String d = defines.get(s.name());
        if (d != null) {
            try {
                return Long.decode(d);
            } catch (NumberFormatException nf) {
                throw new Unsupported(s.pos().line(), "-D " + s.name() + "=" + d + " is not a number");
            }
        }
        var v = LinuxConstants.value(s.name());
        if (v.isEmpty()) throw new Unsupported(s.pos().line(), "symbol " + s.name() + " is not known to jnet drill");
        return v.getAsLong();
    }

    /**
     * The socket address of a {@code struct sockaddr_in} expression, or {@code fallback} for {@code ...} (as
     * packetdrill gives bind the local address and connect the remote one, port 8080).
     */
    InetSocketAddress address(Expr e, InetSocketAddress fallback) throws PlayException, Unsupported {
        if (e instanceof Expr.Ellipsis) return fallback;
        if (!(e instanceof Expr.Struct s)) throw new PlayException(e.pos().line(), "expected a sockaddr, found " + e.render());
        Expr port = s.field("sin_port").orElseThrow(() -> new PlayException(e.pos().line(), "sockaddr without sin_port"));
        Expr addr = s.field("sin_addr").orElseThrow(() -> new PlayException(e.pos().line(), "sockaddr without sin_addr"));
        InetAddress a;
        if (addr instanceof Expr.Call c && c.function().equals("inet_addr") && c.arguments().size() == 1
                && c.arguments().getFirst() instanceof Expr.Str str) {
            try {
                a = InetAddress.getByName(str.value());
            } catch (UnknownHostException x) {
                throw new PlayException(e.pos().line(), "not an address: " + str.value());
            }
        } else {
            long v = hostValue(addr);
            a = intAddress((int) v);
        }
        long p = hostValue(port);
        if (p < 0 || p > 0xffff) throw new PlayException(port.pos().line(), "sin_port " + p + " is out of range (0 to 65535)");
        return new InetSocketAddress(a, (int) p);
    }

    private static InetAddress intAddress(int v) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
