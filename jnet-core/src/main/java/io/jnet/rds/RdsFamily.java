package io.jnet.rds;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/** Installs RDS (after TCP, which carries it) and its {@link io.jnet.socket.RdsSocket} factory. */
public final class RdsFamily implements ProtocolFamily {
    @Override public int order() { return 60; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(RdsProtocol.class, new RdsProtocol(ns)); }
}
