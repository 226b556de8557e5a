package io.jnet.nio;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import java.io.IOException;
import jdk.net.ExtendedSocketOptions;
import java.net.SocketOptions;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.Set;

/**
 * The JDK's {@link java.net.SocketOption}s and jnet's {@link SocketOption}s, one for one where both exist, in the
 * JDK's units: SO_LINGER in seconds (-1 off) against jnet's {@link Duration}; buffer sizes in bytes, read back as
 * the JDK reports them on Linux: half of what getsockopt(2) gives (Linux doubles the value set, for bookkeeping,
 * and the JDK halves it again), so a size set reads back unchanged unless it was clamped.
 */
final class NioOptions {
    private NioOptions() {}

    /** What a TCP socket channel supports. */
    static final Set<java.net.SocketOption<?>> TCP = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_REUSEADDR,
            StandardSocketOptions.SO_LINGER, StandardSocketOptions.TCP_NODELAY, ExtendedSocketOptions.TCP_KEEPIDLE,
            ExtendedSocketOptions.TCP_KEEPINTERVAL, ExtendedSocketOptions.TCP_KEEPCOUNT,
            ExtendedSocketOptions.TCP_QUICKACK);
    /** What a local (UNIX) stream socket channel supports, as the JDK's UNIX channels. */
    static final Set<java.net.SocketOption<?>> LOCAL = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_LINGER);
    /** What a TCP server socket channel supports. */
    static final Set<java.net.SocketOption<?>> TCP_LISTENER = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR);

    /** Sets a jnet option on a socket (a jnet socket's, or an endpoint's, {@code setOption}). */
    @FunctionalInterface
    interface Setter {
        void set(SocketOption<Object> option, Object value) throws IOException;
    }

    /** Reads a jnet option of a socket. */
    @FunctionalInterface
    interface Getter {
        Object get(SocketOption<Object> option) throws IOException;
    }

    /**
     * {@code setOption(name, value)} of a channel or SocketImpl: the JDK's checks, then the jnet option in jnet's
     * units.
     *
     * @throws UnsupportedOperationException for an option not in {@code supported}
     * @throws IllegalArgumentException for a value of the wrong type or a negative buffer size
     * @throws ErrnoException jnet's refusal
     */
    @SuppressWarnings("unchecked")
    static void set(Set<java.net.SocketOption<?>> supported, java.net.SocketOption<?> name, Object value, Setter setter)
            throws IOException {
        java.util.Objects.requireNonNull(name, "name");
        if (!supported.contains(name)) throw new UnsupportedOperationException("'" + name + "' not supported");
        if (!name.type().isInstance(value)) throw new IllegalArgumentException("Invalid value '" + value + "'");
        setter.set((SocketOption<Object>) jnet(name), toJnet(name, value));
    }

    /** {@code getOption(name)} of a channel or SocketImpl, in the JDK's units; as {@link #set} for the errors. */
    @SuppressWarnings("unchecked")
    static Object get(Set<java.net.SocketOption<?>> supported, java.net.SocketOption<?> name, Getter getter) throws IOException {
        java.util.Objects.requireNonNull(name, "name");
        if (!supported.contains(name)) throw new UnsupportedOperationException("'" + name + "' not supported");
        return fromJnet(name, getter.get((SocketOption<Object>) jnet(name)));
    }

    /** The jnet option for {@code name}, or null when jnet has none. */
    static SocketOption<?> jnet(java.net.SocketOption<?> name) {
        if (name == StandardSocketOptions.SO_SNDBUF) return SocketOption.SO_SNDBUF;
        if (name == StandardSocketOptions.SO_RCVBUF) return SocketOption.SO_RCVBUF;
        if (name == StandardSocketOptions.SO_KEEPALIVE) return SocketOption.SO_KEEPALIVE;
        if (name == StandardSocketOptions.SO_REUSEADDR) return SocketOption.SO_REUSEADDR;
        if (name == StandardSocketOptions.SO_LINGER) return SocketOption.SO_LINGER;
        if (name == StandardSocketOptions.TCP_NODELAY) return SocketOption.TCP_NODELAY;
        // seconds, seconds, a count: the same units and bounds as Linux's TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT
        if (name == ExtendedSocketOptions.TCP_KEEPIDLE) return SocketOption.TCP_KEEPIDLE;
        if (name == ExtendedSocketOptions.TCP_KEEPINTERVAL) return SocketOption.TCP_KEEPINTVL;
        if (name == ExtendedSocketOptions.TCP_KEEPCOUNT) return SocketOption.TCP_KEEPCNT;
        // a boolean, as the JDK's setsockopt(TCP_QUICKACK, 0 or 1)
        if (name == ExtendedSocketOptions.TCP_QUICKACK) return SocketOption.TCP_QUICKACK;
        return null;
    }

    /** The int-keyed {@link SocketOptions} constant's jnet option, or null. */
    static java.net.SocketOption<?> standard(int legacy) {
        return switch (legacy) {
            case SocketOptions.SO_SNDBUF -> StandardSocketOptions.SO_SNDBUF;
            case SocketOptions.SO_RCVBUF -> StandardSocketOptions.SO_RCVBUF;
            case SocketOptions.SO_KEEPALIVE -> StandardSocketOptions.SO_KEEPALIVE;
            case SocketOptions.SO_REUSEADDR -> StandardSocketOptions.SO_REUSEADDR;
            case SocketOptions.SO_LINGER -> StandardSocketOptions.SO_LINGER;
            case SocketOptions.TCP_NODELAY -> StandardSocketOptions.TCP_NODELAY;
            default -> null;
        };
    }

    /** The JDK value as jnet's: SO_LINGER seconds to a Duration; the rest unchanged. */
    static Object toJnet(java.net.SocketOption<?> name, Object value) {
        if (value == null) throw new IllegalArgumentException("Invalid value 'null'");
        if (name == StandardSocketOptions.SO_LINGER) {
            int s = (Integer) value;
            return s < 0 ? null : Duration.ofSeconds(Math.min(s, 65_535));
        }
        if ((name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF) && (Integer) value < 0)
            throw new IllegalArgumentException("Invalid send/receive buffer size");
        return value;
    }

    /** The jnet value as the JDK's: a Duration to SO_LINGER seconds (-1 when off); buffer sizes halved. */
    static Object fromJnet(java.net.SocketOption<?> name, Object value) {
        if (name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF) return (Integer) value / 2;
        if (name == StandardSocketOptions.SO_LINGER) {
            if (value == null) return -1;
            Duration d = (Duration) value;
            return d.isNegative() ? -1 : (int) Math.min(d.toSeconds(), Integer.MAX_VALUE);
        }
        return value;
    }
}
