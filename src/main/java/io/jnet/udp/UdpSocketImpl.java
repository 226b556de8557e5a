package io.jnet.udp;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;

/** UDP socket implementation (in progress). */
public final class UdpSocketImpl {
    private UdpSocketImpl() {}
    public static UdpSocket open(NetNamespace ns) { throw new UnsupportedOperationException("UDP not yet built"); }
}
