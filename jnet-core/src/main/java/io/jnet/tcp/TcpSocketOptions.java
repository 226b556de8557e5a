package io.jnet.tcp;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.SocketOptionValues;
import java.time.Duration;

/**
 * Socket options of TCP sockets and listeners, with Linux's semantics: SO_SNDBUF/SO_RCVBUF are
 * doubled (for bookkeeping overhead), capped by net.core.wmem_max/rmem_max, floored at 4608/2304
 * bytes, and stop autotuning; SO_LINGER with zero aborts on close; TCP_NODELAY and TCP_CORK set Linux's
 * tp->nonagle bits and push queued data as Linux does; SO_OOBINLINE keeps urgent data in the stream.
 */
final class TcpSocketOptions {
    static final int SOCK_MIN_SNDBUF = 4608;
    static final int SOCK_MIN_RCVBUF = 2304;
    /** The MSS before a handshake sets it (Linux TCP_MSS_DEFAULT), what TCP_MAXSEG reads on a new socket. */
    static final int TCP_MSS_DEFAULT = 536;

    private TcpSocketOptions() {}

    static <T> void set(TcpConnection c, SocketOption<T> option, T value) throws ErrnoException {
        if (value == null && option != SocketOption.SO_LINGER) throw new ErrnoException(Errno.EINVAL, "setsockopt " + option);
        if (option == SocketOption.SO_SNDBUF) {
            c.sndbuf = SocketOptionValues.clampBuf((Integer) value, c.tcp.sysctl.wmemMax.intValue(), SOCK_MIN_SNDBUF);
            c.sndbufLocked = true;
            c.wakeUp();
        } else if (option == SocketOption.SO_RCVBUF) {
            c.rcvbuf = SocketOptionValues.clampBuf((Integer) value, c.tcp.sysctl.rmemMax.intValue(), SOCK_MIN_RCVBUF);
            c.rcvbufLocked = true;
        } else if (option == SocketOption.SO_RCVTIMEO) {
            c.rcvTimeoNs = SocketOptionValues.timeout((Duration) value);
        } else if (option == SocketOption.SO_SNDTIMEO) {
            c.sndTimeoNs = SocketOptionValues.timeout((Duration) value);
        } else if (option == SocketOption.SO_REUSEADDR) {
            c.reuseAddr = (Boolean) value;
        } else if (option == SocketOption.SO_LINGER) {
            Duration d = (Duration) value;
            c.lingerNs = d == null || d.isNegative() ? -1 : d.toNanos();
        } else if (option == SocketOption.TCP_NODELAY) {
            // Linux __tcp_sock_set_nodelay: on sets TCP_NAGLE_OFF and the one-shot TCP_NAGLE_PUSH and pushes
            if ((Boolean) value) {
                c.nonagle |= TcpOutput.TCP_NAGLE_OFF | TcpOutput.TCP_NAGLE_PUSH;
                TcpOutput.push(c, c.nonagle);
            } else {
                c.nonagle &= ~TcpOutput.TCP_NAGLE_OFF;
            }
        } else if (option == SocketOption.TCP_CORK) {
            // Linux __tcp_sock_set_cork: uncorking pushes what is queued, at once when TCP_NODELAY is set
            if ((Boolean) value) {
                c.nonagle |= TcpOutput.TCP_NAGLE_CORK;
            } else {
                c.nonagle &= ~TcpOutput.TCP_NAGLE_CORK;
                if ((c.nonagle & TcpOutput.TCP_NAGLE_OFF) != 0) c.nonagle |= TcpOutput.TCP_NAGLE_PUSH;
                TcpOutput.push(c, c.nonagle);
            }
        } else if (option == SocketOption.SO_BUSY_POLL) {
            int us = (Integer) value;
            if (us < 0) throw new ErrnoException(Errno.EINVAL, "SO_BUSY_POLL " + us);
            c.busyPollUs = us;
        } else if (option == SocketOption.SO_OOBINLINE) {
            c.urgInline = (Boolean) value; // Linux sock_valbool_flag(SOCK_URGINLINE): taken into account from now on
        } else if (option == SocketOption.SO_RCVLOWAT) {
            setRcvLowat(c, (Integer) value);
            if (c.dataPath instanceof FriendsDataPath f) f.publishRcvLowat(c);
            TcpInput.dataReady(c); // tcp_set_rcvlowat: "check if we need to signal EPOLLIN right now"
        } else if (option == SocketOption.SO_KEEPALIVE) {
            boolean on = (Boolean) value;
            if (on && !c.keepalive && c.state.isSynchronized()) TcpTimers.armKeepalive(c);
            if (!on) c.keepaliveTimer.cancel();
            c.keepalive = on;
        } else if (option == SocketOption.TCP_KEEPIDLE) {
            c.keepIdleS = checked(option, (Integer) value);
            // tcp_sock_set_keepidle_locked: a running keepalive timer is re-armed for the idle time left, now if none
            if (c.keepalive && c.state != TcpState.CLOSED && c.state != TcpState.LISTEN) {
                long left = TcpTimers.keepaliveTimeNs(c) - TcpTimers.keepaliveIdleNs(c);
                c.keepaliveTimer.schedule(Math.max(left, 0));
            }
        } else if (option == SocketOption.TCP_USER_TIMEOUT) {
            int ms = (Integer) value;
            if (ms < 0) throw new ErrnoException(Errno.EINVAL, "TCP_USER_TIMEOUT " + ms); // tcp_sock_set_user_timeout
            c.userTimeoutMs = ms;
        } else if (option == SocketOption.TCP_MAXSEG) {
            c.userMss = checked(option, (Integer) value); // used by the next handshake (tcp_connect_init)
        } else if (option == SocketOption.TCP_KEEPINTVL) {
            c.keepIntvlS = checked(option, (Integer) value);
        } else if (option == SocketOption.TCP_KEEPCNT) {
            c.keepCnt = checked(option, (Integer) value);
        } else if (option == SocketOption.TCP_QUICKACK) {
            setQuickack(c, (Boolean) value);
        } else if (option == SocketOption.TCP_DEFER_ACCEPT) {
            c.deferAccept = SocketOptionValues.deferAcceptRetrans((Integer) value); // secs_to_retrans
        } else {
            throw new ErrnoException(Errno.ENOPROTOOPT, "setsockopt " + option);
        }
    }

    /**
     * The value of an integer TCP option within Linux's bounds (do_tcp_setsockopt): TCP_KEEPIDLE and TCP_KEEPINTVL
     * 1..32767 s (MAX_TCP_KEEPIDLE, MAX_TCP_KEEPINTVL), TCP_KEEPCNT 1..127 (MAX_TCP_KEEPCNT), TCP_MAXSEG 0 (none)
     * or 88..32767 bytes (TCP_MIN_MSS, MAX_TCP_WINDOW).
     *
     * @throws ErrnoException EINVAL when out of bounds
     */
    static int checked(SocketOption<?> option, int v) throws ErrnoException {
        int min = 1, max;
        if (option == SocketOption.TCP_MAXSEG) {
            if (v == 0) return 0;
            min = 88;
            max = 32767;
        } else if (option == SocketOption.TCP_KEEPIDLE || option == SocketOption.TCP_KEEPINTVL) max = 32767;
        else if (option == SocketOption.TCP_KEEPCNT) max = 127;
        else throw new IllegalArgumentException(option.name());
        if (v < min || v > max) throw new ErrnoException(Errno.EINVAL, "setsockopt " + option + " " + v);
        return v;
    }



    @SuppressWarnings("unchecked")
    static <T> T get(TcpConnection c, SocketOption<T> option) throws ErrnoException {
        Object v;
        if (option == SocketOption.SO_SNDBUF) v = c.sndbuf;
        else if (option == SocketOption.SO_RCVBUF) v = c.rcvbuf;
        else if (option == SocketOption.SO_RCVTIMEO) v = Duration.ofNanos(c.rcvTimeoNs);
        else if (option == SocketOption.SO_SNDTIMEO) v = Duration.ofNanos(c.sndTimeoNs);
        else if (option == SocketOption.SO_REUSEADDR) v = c.reuseAddr;
        else if (option == SocketOption.SO_LINGER) v = c.lingerNs < 0 ? null : Duration.ofNanos(c.lingerNs);
        else if (option == SocketOption.TCP_NODELAY) v = (c.nonagle & TcpOutput.TCP_NAGLE_OFF) != 0;
        else if (option == SocketOption.TCP_CORK) v = (c.nonagle & TcpOutput.TCP_NAGLE_CORK) != 0;
        else if (option == SocketOption.SO_KEEPALIVE) v = c.keepalive;
        else if (option == SocketOption.SO_OOBINLINE) v = c.urgInline;
        else if (option == SocketOption.SO_BUSY_POLL) v = c.busyPollUs;
        else if (option == SocketOption.SO_ERROR) v = takeError(c);
        else if (option == SocketOption.TCP_KEEPIDLE) v = (int) (TcpTimers.keepaliveTimeNs(c) / 1_000_000_000L);
        else if (option == SocketOption.TCP_KEEPINTVL) v = (int) (TcpTimers.keepaliveIntvlNs(c) / 1_000_000_000L);
        else if (option == SocketOption.TCP_KEEPCNT) v = TcpTimers.keepaliveProbes(c);
        else if (option == SocketOption.TCP_USER_TIMEOUT) v = c.userTimeoutMs;
        else if (option == SocketOption.TCP_MAXSEG) v = c.userMss != 0 && c.state == TcpState.CLOSED ? c.userMss : c.mss;
        else if (option == SocketOption.SO_RCVLOWAT) v = c.rcvLowat;
        else if (option == SocketOption.TCP_QUICKACK) v = c.pingpong == 0; // !inet_csk_in_pingpong_mode
        else if (option == SocketOption.TCP_DEFER_ACCEPT) v = SocketOptionValues.deferAcceptSeconds(c.deferAccept);
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
    }

    /**
     * TCP_QUICKACK as Linux's __tcp_sock_set_quickack: off enters pingpong mode (inet_csk_enter_pingpong_mode); on
     * leaves it and, when an ACK is pending (inet_csk_ack_scheduled) on an ESTABLISHED or CLOSE_WAIT connection,
     * marks it pushed (ICSK_ACK_PUSHED) and lets tcp_cleanup_rbuf decide as after a one-byte read: the ACK goes
     * now when the receive queue is empty or a window update is due. Quick ACKs are not granted: the next data is
     * ACKed at once only while quick ACKs remain (tcp_in_quickack_mode).
     */
    static void setQuickack(TcpConnection c, boolean on) {
        if (!on) {
            c.pingpong = 1;
            return;
        }
        c.pingpong = 0;
        if ((c.state == TcpState.ESTABLISHED || c.state == TcpState.CLOSE_WAIT) && c.ackPending) {
            c.ackPushed = true;
            TcpOutput.cleanupRbuf(c, 1);
        }
    }

    /**
     * SO_ERROR (Linux sock_error): the pending error, cleared as it is read. A failed connection attempt counts
     * as reported then, as when connect() or finishConnect() reported it.
     */
    private static int takeError(TcpConnection c) {
        int err = c.soError;
        if (err == 0) return 0;
        c.soError = 0;
        if (c.state == TcpState.CLOSED && !c.accepted) c.connectReported = true;
        return err;
    }

    /**
     * SO_RCVLOWAT as Linux's sock_setsockopt and tcp_set_rcvlowat set it: a negative value is
     * {@link Integer#MAX_VALUE}; the mark is capped at half the receive buffer once SO_RCVBUF fixed it, else at
     * half of net.ipv4.tcp_rmem[2]; 0 becomes 1; and a receive buffer SO_RCVBUF did not fix grows to what a window
     * of the mark needs (tcp_space_from_win). No wake-up: the caller decides (tcp_data_ready).
     */
    static void setRcvLowat(TcpConnection c, int val) {
        int cap = capRcvLowat(val, c.rcvbufLocked ? c.rcvbuf : -1, c.tcp.sysctl.tcpRmem.intValue(2));
        c.rcvLowat = cap;
        if (c.rcvbufLocked) return;
        long space = ReceiveMemory.spaceFromWin(cap);
        if (space > c.rcvbuf) c.rcvbuf = (int) Math.min(Integer.MAX_VALUE, space);
    }

    /**
     * The mark Linux stores for {@code val} (sock_setsockopt, tcp_set_rcvlowat): negative is
     * {@link Integer#MAX_VALUE}, at most half of {@code lockedRcvbuf} (when not -1) or else of {@code rmemMax}, at
     * least 1.
     */
    static int capRcvLowat(int val, int lockedRcvbuf, int rmemMax) {
        if (val < 0) val = Integer.MAX_VALUE;
        int cap = lockedRcvbuf >= 0 ? lockedRcvbuf >> 1 : rmemMax >> 1;
        return Math.max(1, Math.min(val, cap));
    }

    /**
     * Send-buffer autotuning (Linux tcp_sndbuf_expand): room for two congestion windows of segments
     * (at least the initial window), within net.ipv4.tcp_wmem, unless SO_SNDBUF fixed it; not under TCP memory
     * pressure or with net.ipv4.tcp_mem[0] reached ({@link TcpMemory}).
     */
    static void expandSndbuf(TcpConnection c) {
        if (c.sndbufLocked) return;
        // tcp_should_expand_sndbuf: not under TCP memory pressure, nor with tcp_mem[0] reached
        if (c.tcp.memory.underPressure() || c.tcp.memory.aboveMin()) return;
        int goal = TcpOutput.sizeGoal(c);
        long perSeg = goal + 320L;
        long segs = Math.max(CongestionWindow.INIT_CWND_SEGMENTS, c.win.cwnd / Math.max(1, goal));
        long want = Math.min(c.tcp.sysctl.tcpWmem.intValue(2), 2 * segs * perSeg);
        if (want > c.sndbuf) c.sndbuf = (int) want;
    }
}
