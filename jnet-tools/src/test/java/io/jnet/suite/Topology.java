package io.jnet.suite;

import io.jnet.stack.Interface;
import io.jnet.stack.NetNamespace;
import io.jnet.tcp.TcpProtocol;
import java.net.InetAddress;
import java.util.List;

/**
 * A built {@link TransportPath}: where clients open sockets, where servers listen, and the address
 * clients connect to. Client and server namespace may be the same (loopback).
 */
public interface Topology extends AutoCloseable {

    /** Namespace in which the suite opens client sockets. */
    NetNamespace client();

    /** Namespace in which the suite opens listening sockets. */
    NetNamespace server();

    /** The client namespace's own address on the path (clients bind to it). */
    InetAddress clientAddress();

    /** The server's address as clients reach it; servers bind to it. */
    InetAddress serverAddress();

    /** Every distinct namespace of the topology (checked for internal errors after each test). */
    List<NetNamespace> namespaces();

    /** True when client and server talk over loopback addresses (tcp_tw_reuse=2 applies). */
    boolean isLoopback();

    /**
     * What a failure message should show about the topology's state: for each namespace, its
     * non-TIME-WAIT connections ({@code ss -tan} style), its non-zero MIB counters and its devices' counters.
     */
    default String describe() {
        StringBuilder b = new StringBuilder();
        for (NetNamespace ns : namespaces()) {
            b.append("== ").append(ns).append('\n');
            TcpProtocol tcp = ns.extension(TcpProtocol.class);
            if (tcp != null) {
                for (String c : tcp.describeConnections()) if (!c.startsWith("TIME-WAIT")) b.append("  ").append(c).append('\n');
                b.append("  TIME-WAIT: ").append(tcp.timeWaitCount()).append('\n');
            }
            for (Interface i : ns.interfaces()) b.append("  ").append(i.device()).append(' ').append(i.device().stats()).append('\n');
            b.append(ns.mib().toNstatString().indent(2));
        }
        return b.toString();
    }

    /** Closes every namespace (and device) the topology created. */
    @Override
    void close();
}
