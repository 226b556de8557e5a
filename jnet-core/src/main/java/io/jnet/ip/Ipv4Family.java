package io.jnet.ip;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs the IPv4 layer (after ARP). */
public final class Ipv4Family implements ProtocolFamily {
    @Override public int order() { return 20; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(Ipv4Layer.class, new Ipv4Layer(ns)); }
}
