package io.jnet.tcp;

import io.jnet.wire.Ipv4;

/** What the connection table holds: a full connection or a TIME-WAIT remnant, keyed by its 4-tuple. */
abstract sealed class TcpEndpoint permits TcpConnection, TimeWaitSock {
    int localAddr;
    int localPort;
    int remoteAddr;
    int remotePort;
    /** Chain link in the connection table bucket. */
    TcpEndpoint hashNext;
    boolean hashed;

    final boolean matches(int laddr, int lport, int raddr, int rport) {
        return localPort == lport && remotePort == rport && localAddr == laddr && remoteAddr == raddr;
    }

    String tuple() {
        return Ipv4.addressToString(localAddr) + ":" + localPort + " -> " + Ipv4.addressToString(remoteAddr) + ":" + remotePort;
    }
}
