package io.jnet.tcp;

import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.NetNamespace;

/** TCP listener implementation (in progress). */
public final class TcpListenerImpl {
    private TcpListenerImpl() {}
    public static TcpServerSocket open(NetNamespace ns) { throw new UnsupportedOperationException("TCP not yet built"); }
}
