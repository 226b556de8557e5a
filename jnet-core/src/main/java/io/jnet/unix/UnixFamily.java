package io.jnet.unix;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.ProtocolFamily;

/**
 * Installs local stream sockets (Linux's AF_UNIX, {@code af_unix_init}): the namespace's name table and the
 * {@link io.jnet.socket.LocalSocket} and {@link io.jnet.socket.LocalServerSocket} factories. They use no
 * device and no IP, so the order only places them after the transports over IPv4.
 */
public final class UnixFamily implements ProtocolFamily {
    @Override public int order() { return 50; }

    @Override
    public void install(NetNamespace ns) { ns.putExtension(UnixProtocol.class, new UnixProtocol(ns)); }
}
