package io.jnet.nio;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * The exceptions the JDK's own socket channels throw for an errno (as its {@code Net.c} maps them): the message is
 * the errno's strerror text, as the JDK's, so that programs that match on it see the same.
 */
final class NioErrors {
    private NioErrors() {}

    /**
     * The exception a connect(2) failure gives: ConnectException, NoRouteToHostException, BindException,
     * SocketException; its cause is the stack's ErrnoException, for callers that want the errno back (through the
     * wrappers of e.g. {@code HttpClient}).
     */
    static SocketException connect(ErrnoException e) {
        Errno errno = e.errno();
        SocketException x = switch (errno) {
            case ECONNREFUSED, ETIMEDOUT, ENOTCONN -> new ConnectException(errno.message());
            case EHOSTUNREACH -> new NoRouteToHostException(errno.message());
            case EADDRINUSE, EADDRNOTAVAIL -> new BindException(errno.message());
            default -> new SocketException(errno.message());
        };
        x.initCause(e);
        return x;
    }

    /** The exception a bind(2) or listen(2) failure gives. */
    static SocketException bind(ErrnoException e) {
        Errno errno = e.errno();
        return switch (errno) {
            case EADDRINUSE, EADDRNOTAVAIL, EPERM -> new BindException(errno.message());
            default -> new SocketException(errno.message());
        };
    }

    /**
     * The exception a write gives, as the JDK's write on Linux: "Connection reset by peer" and "Broken pipe" as plain
     * IOExceptions (strerror's text), other errors as {@link #io}.
     */
    static IOException write(ErrnoException e) {
        return switch (e.errno()) {
            case ECONNRESET -> new IOException("Connection reset by peer");
            case EPIPE -> new IOException("Broken pipe");
            default -> io(e);
        };
    }

    /** The exception a read, write or option call gives: "Connection reset", "Broken pipe", else the strerror text. */
    static IOException io(ErrnoException e) {
        Errno errno = e.errno();
        return switch (errno) {
            case ECONNRESET -> new SocketException("Connection reset");
            case EPIPE -> new IOException("Broken pipe");
            case ETIMEDOUT -> new SocketException("Connection timed out");
            case ECONNREFUSED -> new ConnectException("Connection refused");
            default -> new SocketException(errno.message());
        };
    }

    /**
     * The IPv4 socket address jnet can use for {@code sa}: an InetSocketAddress, resolved, IPv4 (an IPv4-mapped
     * IPv6 address is already an Inet4Address in Java).
     *
     * @throws UnsupportedAddressTypeException for another kind of address (as the JDK's channels)
     * @throws UnresolvedAddressException for an unresolved one
     * @throws SocketException for an IPv6 address: jnet has no IPv6 yet, and never hands the socket to the kernel
     */
    static InetSocketAddress inet4(SocketAddress sa) throws SocketException {
        if (!(sa instanceof InetSocketAddress isa)) throw new UnsupportedAddressTypeException();
        if (isa.isUnresolved()) throw new UnresolvedAddressException();
        InetAddress a = isa.getAddress();
        if (a instanceof Inet4Address) return isa;
        if (a.isAnyLocalAddress()) return new InetSocketAddress(isa.getPort()); // :: -> 0.0.0.0
        throw new SocketException("jnet has no IPv6 yet, IPv4 only: " + a.getHostAddress() + " (Address family not supported by protocol)");
    }
}
