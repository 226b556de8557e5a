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
    /**
     * One-shot registration flag (EPOLLONESHOT): once {@link Poller#poll} has reported the socket, the registration
     * is disarmed, reporting nothing (not even POLLERR or POLLHUP) until {@link Poller#modify} arms it again
     * (epoll(7); Linux ep_send_events keeps only the private bits of such an item).
     */
    public static final int EPOLLONESHOT = 1 << 30;
    /**
     * Exclusive wake-up flag (EPOLLEXCLUSIVE, Linux 4.5): Linux wakes only one of the epoll instances waiting on a
     * socket with it. {@link Poller} does not support it and refuses it, since jnet's sockets wake every poller
     * that watches them.
     */
    public static final int EPOLLEXCLUSIVE = 1 << 28;

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
