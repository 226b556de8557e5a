package io.jnet.udp;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs UDP (after IPv4 and ICMP, like TCP) and its {@link io.jnet.socket.UdpSocket} factory. */
public final class UdpFamily implements ProtocolFamily {
    @Override public int order() { return 40; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(UdpProtocol.class, new UdpProtocol(ns)); }
}
