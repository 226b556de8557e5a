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
 * tp->nonagle bits and push queued data as Linux does.
 */
final class TcpSocketOptions {
    static final int SOCK_MIN_SNDBUF = 4608;
    static final int SOCK_MIN_RCVBUF = 2304;

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
        } else if (option == SocketOption.SO_RCVLOWAT) {
            setRcvLowat(c, (Integer) value);
            if (c.dataPath instanceof FriendsDataPath f) f.publishRcvLowat(c);
            TcpInput.dataReady(c); // tcp_set_rcvlowat: "check if we need to signal EPOLLIN right now"
        } else if (option == SocketOption.SO_KEEPALIVE) {
            boolean on = (Boolean) value;
            if (on && !c.keepalive && c.state.isSynchronized()) TcpTimers.armKeepalive(c);
            if (!on) c.keepaliveTimer.cancel();
            c.keepalive = on;
        } else {
            throw new ErrnoException(Errno.ENOPROTOOPT, "setsockopt " + option);
        }
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
        else if (option == SocketOption.SO_BUSY_POLL) v = c.busyPollUs;
        else if (option == SocketOption.SO_RCVLOWAT) v = c.rcvLowat;
        else throw new ErrnoException(Errno.ENOPROTOOPT, "getsockopt " + option);
        return (T) v;
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
