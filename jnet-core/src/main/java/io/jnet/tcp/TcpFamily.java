package io.jnet.tcp;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs TCP (after IPv4 and ICMP). */
public final class TcpFamily implements ProtocolFamily {
    @Override public int order() { return 40; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(TcpProtocol.class, new TcpProtocol(ns)); }
}
