package io.jnet.tcp;

/** TCP connection states (RFC 9293 3.3.2), with the names Linux's {@code ss} prints. */
public enum TcpState {
    CLOSED("UNCONN"), LISTEN("LISTEN"), SYN_SENT("SYN-SENT"), SYN_RECEIVED("SYN-RECV"), ESTABLISHED("ESTAB"),
    FIN_WAIT_1("FIN-WAIT-1"), FIN_WAIT_2("FIN-WAIT-2"), CLOSE_WAIT("CLOSE-WAIT"), CLOSING("CLOSING"),
    LAST_ACK("LAST-ACK"), TIME_WAIT("TIME-WAIT");

    private final String ssName;

    TcpState(String ssName) { this.ssName = ssName; }

    /** The name {@code ss} shows. */
    public String ssName() { return ssName; }

    /** True once a SYN has been received and the connection is synchronized (RFC 9293 3.10.7.4). */
    public boolean isSynchronized() { return ordinal() >= SYN_RECEIVED.ordinal(); }

    /** States in which the application may still send. */
    public boolean canSend() { return this == ESTABLISHED || this == CLOSE_WAIT; }
}
