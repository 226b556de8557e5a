package io.jnet.arp;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs the neighbour table and ARP into each namespace. */
public final class ArpFamily implements ProtocolFamily {
    @Override public int order() { return 10; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(NeighbourTable.class, new NeighbourTable(ns)); }
}
