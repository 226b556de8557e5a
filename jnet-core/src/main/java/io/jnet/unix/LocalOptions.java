package io.jnet.unix;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import io.jnet.stack.Sysctls;
import java.time.Duration;

/**
 * The SOL_SOCKET options of a local socket or listener, with Linux's {@code sock_setsockopt} semantics: buffer
 * sizes doubled, capped by net.core.wmem_max/rmem_max, floored at SOCK_MIN_SNDBUF/SOCK_MIN_RCVBUF. A new
 * socket starts at net.core.wmem_default, net.core.rmem_default (sock_init_data) and net.core.busy_read.
 * Written under the owning socket's lock; {@link #sndbuf} is also read by the peer, to judge when to wake a
 * writer.
 */
final class LocalOptions {
    static final int SOCK_MIN_SNDBUF = 4608;
    static final int SOCK_MIN_RCVBUF = 2304;

    private final Sysctls sysctl;
    /** SO_SNDBUF in bytes: the most this socket may have written and not yet read by its peer. */
    volatile int sndbuf;
    /** SO_RCVBUF in bytes: kept and reported; AF_UNIX stream sockets are not limited by it. */
    int rcvbuf;
    long rcvTimeoNs;
    long sndTimeoNs;
    /** SO_BUSY_POLL in microseconds. */
    int busyPollUs;
    /** SO_LINGER in ns, -1 off; kept only. */
    long lingerNs = -1;
    boolean reuseAddr;
    boolean keepalive;

    LocalOptions(Sysctls sysctl) {
        this.sysctl = sysctl;
        sndbuf = Math.max(SOCK_MIN_SNDBUF, sysctl.wmemDefault.intValue());
        rcvbuf = Math.max(SOCK_MIN_RCVBUF, sysctl.rmemDefault.intValue());
        busyPollUs = sysctl.busyRead.intValue();
    }

    /** @return true when SO_SNDBUF changed (a waiting writer may go on: Linux's sk_write_space) */
    <T> boolean set(SocketOption<T> option, T value) throws ErrnoException {
        if (option == SocketOption.TCP_NODELAY || option == SocketOption.TCP_CORK) throw notSolSocket(option);
        if (value == null && option != SocketOption.SO_LINGER) throw new ErrnoException(Errno.EINVAL, "setsockopt " + option);
        if (option == SocketOption.SO_SNDBUF) {
            sndbuf = SocketOptionValues.clampBuf((Integer) value, sysctl.wmemMax.intValue(), SOCK_MIN_SNDBUF);
            return true;
        } else if (option == SocketOption.SO_RCVBUF) {
            rcvbuf = SocketOptionValues.clampBuf((Integer) value, sysctl.rmemMax.intValue(), SOCK_MIN_RCVBUF);
        } else if (option == SocketOption.SO_RCVTIMEO) {
            rcvTimeoNs = SocketOptionValues.timeout((Duration) value);
        } else if (option == SocketOption.SO_SNDTIMEO) {
            sndTimeoNs = SocketOptionValues.timeout((Duration) value);
        } else if (option == SocketOption.SO_BUSY_POLL) {
            int us = (Integer) value;
            if (us < 0) throw new ErrnoException(Errno.EINVAL, "SO_BUSY_POLL " + us);
            busyPollUs = us;
        } else if (option == SocketOption.SO_LINGER) {
            Duration d = (Duration) value;
            lingerNs = d == null || d.isNegative() ? -1 : d.toNanos();
        } else if (option == SocketOption.SO_REUSEADDR) {
            reuseAddr = (Boolean) value;
        } else if (option == SocketOption.SO_KEEPALIVE) {
            keepalive = (Boolean) value;
        } else {
            throw new ErrnoException(Errno.ENOPROTOOPT, "setsockopt " + option);
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    <T> T get(SocketOption<T> option) throws ErrnoException {
        Object v;
        if (option == SocketOption.SO_SNDBUF) v = sndbuf;
        else if (option == SocketOption.SO_RCVBUF) v = rcvbuf;
        else if (option == SocketOption.SO_RCVTIMEO) v = Duration.ofNanos(rcvTimeoNs);
        else if (option == SocketOption.SO_SNDTIMEO) v = Duration.ofNanos(sndTimeoNs);
        else if (option == SocketOption.SO_BUSY_POLL) v = busyPollUs;
        else if (option == SocketOption.SO_LINGER) v = lingerNs < 0 ? null : Duration.ofNanos(lingerNs);
        else if (option == SocketOption.SO_REUSEADDR) v = reuseAddr;
        else if (option == SocketOption.SO_KEEPALIVE) v = keepalive;
        else if (option == SocketOption.TCP_NODELAY || option == SocketOption.TCP_CORK) throw notSolSocket(option);
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
    }

    /** Linux's unix_setsockopt: any level but SOL_SOCKET is EOPNOTSUPP. */
    private static ErrnoException notSolSocket(SocketOption<?> option) {
        return new ErrnoException(Errno.EOPNOTSUPP, option + " is a TCP option; local sockets have SOL_SOCKET options only");
    }


}
