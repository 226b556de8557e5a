package io.jnet.tcp;

import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;

/** TCP socket implementation (in progress). */
public final class TcpSocketImpl {
    private TcpSocketImpl() {}
    public static TcpSocket open(NetNamespace ns) { throw new UnsupportedOperationException("TCP not yet built"); }
}
