package io.jnet.tcp;

import io.jnet.socket.TcpInfo;

/** TCP connection states (RFC 9293 3.3.2), with the names Linux's {@code ss} prints. */
public enum TcpState {
    CLOSED("UNCONN", TcpInfo.TCP_CLOSE), LISTEN("LISTEN", TcpInfo.TCP_LISTEN), SYN_SENT("SYN-SENT", TcpInfo.TCP_SYN_SENT),
    SYN_RECEIVED("SYN-RECV", TcpInfo.TCP_SYN_RECV), ESTABLISHED("ESTAB", TcpInfo.TCP_ESTABLISHED),
    FIN_WAIT_1("FIN-WAIT-1", TcpInfo.TCP_FIN_WAIT1), FIN_WAIT_2("FIN-WAIT-2", TcpInfo.TCP_FIN_WAIT2),
    CLOSE_WAIT("CLOSE-WAIT", TcpInfo.TCP_CLOSE_WAIT), CLOSING("CLOSING", TcpInfo.TCP_CLOSING),
    LAST_ACK("LAST-ACK", TcpInfo.TCP_LAST_ACK), TIME_WAIT("TIME-WAIT", TcpInfo.TCP_TIME_WAIT);

    private final String ssName;
    private final int linuxNumber;

    TcpState(String ssName, int linuxNumber) {
        this.ssName = ssName;
        this.linuxNumber = linuxNumber;
    }

    /** The name {@code ss} shows. */
    public String ssName() { return ssName; }

    /** The number Linux gives the state (TCP_ESTABLISHED = 1 ... TCP_CLOSING = 11), as in TCP_INFO's state. */
    public int linuxNumber() { return linuxNumber; }

    /** True once a SYN has been received and the connection is synchronized (RFC 9293 3.10.7.4). */
    public boolean isSynchronized() { return ordinal() >= SYN_RECEIVED.ordinal(); }

    /** States in which the application may still send. */
    public boolean canSend() { return this == ESTABLISHED || this == CLOSE_WAIT; }
}
