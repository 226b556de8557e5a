package io.jnet.socket;

/** poll(2)/epoll(7) event bits, values as on Linux. */
public final class Events {
    public static final int POLLIN = 0x001;
    /** Urgent data waits to be read with MSG_OOB (TCP: Linux tcp_poll's TCP_URG_VALID). */
    public static final int POLLPRI = 0x002;
    public static final int POLLOUT = 0x004;
    public static final int POLLERR = 0x008;
    public static final int POLLHUP = 0x010;
    public static final int POLLRDHUP = 0x2000;
    /** Edge-triggered registration flag (EPOLLET). */
    public static final int EPOLLET = 1 << 31;

    private Events() {}

    public static String toString(int ev) {
        StringBuilder sb = new StringBuilder();
        if ((ev & POLLIN) != 0) sb.append("IN|");
        if ((ev & POLLPRI) != 0) sb.append("PRI|");
        if ((ev & POLLOUT) != 0) sb.append("OUT|");
        if ((ev & POLLERR) != 0) sb.append("ERR|");
        if ((ev & POLLHUP) != 0) sb.append("HUP|");
        if ((ev & POLLRDHUP) != 0) sb.append("RDHUP|");
        if (sb.isEmpty()) return "0";
        sb.setLength(sb.length() - 1);
        return sb.toString();
    }
}
