package io.jnet.rds;

/**
 * Delivery between addresses of one namespace (Linux's rds_loop, net/rds/loop.c): a message is handed to the
 * receive path in the sending thread, with no TCP underneath, and freed at once. The congestion map of the
 * destination is the local map itself, so a change of it only wakes waiters (rds_loop_xmit_cong_map).
 */
final class RdsLoopTransport implements RdsTransport {
    @Override
    public void connect(RdsConnection c) { c.connectComplete(RdsConnState.CONNECTING); }

    @Override
    public int xmit(RdsConnection c, RdsOutMessage m) {
        // rds_loop_xmit: rds_recv_incoming(conn, laddr, faddr): the sender is laddr, the receiver faddr
        c.proto.recvIncoming(c, c.laddr, c.faddr, m.msg);
        return XMIT_DONE;
    }

    @Override public boolean keepsRetransmitQueue() { return false; }

    @Override public void dropAcked(RdsConnection c) {}

    @Override public void shutdown(RdsConnection c, boolean reset) {}
}
