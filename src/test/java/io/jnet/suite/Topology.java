package io.jnet.suite;

import io.jnet.stack.NetNamespace;
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

    /** Closes every namespace (and device) the topology created. */
    @Override
    void close();
}
