package io.jnet.icmp;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs ICMPv4 (after IPv4). */
public final class IcmpFamily implements ProtocolFamily {
    @Override public int order() { return 30; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(IcmpProtocol.class, new IcmpProtocol(ns)); }
}
