package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.VethPair;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Two namespaces on one {@link VirtualClock}, joined by a veth pair: the client {@code a} (10.0.0.1 on
 * veth0, behind a {@link FilterDevice}) and the server {@code b} (10.0.0.2 on veth1). Delivery is
 * synchronous; time moves only through {@link #advanceMillis}. Sockets are non-blocking.
 */
final class VirtualNet implements AutoCloseable {
    static final String CLIENT_ADDR = "10.0.0.1";
    static final String SERVER_ADDR = "10.0.0.2";
    static final int PORT = 5001;

    final VirtualClock clock = new VirtualClock();
    final NetNamespace a = NetNamespace.create("vt-a", clock);
    final NetNamespace b = NetNamespace.create("vt-b", clock);
    final VethPair veth = VethPair.create("veth0", "veth1");
    /** Wraps the client's veth end: outbound = client to server, inbound = server to client. */
    final FilterDevice filter = new FilterDevice(veth.a(), clock);

    VirtualNet() {
        a.attach(filter);
        b.attach(veth.b());
        a.addAddress("veth0", CLIENT_ADDR + "/24");
        b.addAddress("veth1", SERVER_ADDR + "/24");
    }

    static InetSocketAddress server(int port) { return new InetSocketAddress(SERVER_ADDR, port); }

    static InetSocketAddress client(int port) { return new InetSocketAddress(CLIENT_ADDR, port); }

    void advanceMillis(long ms) { clock.advanceMillis(ms); }

    /** A non-blocking listener on the server. */
    TcpServerSocket listen(int port) throws IOException {
        TcpServerSocket s = TcpServerSocket.open(b);
        s.setBlocking(false);
        s.bind(server(port));
        s.listen(16);
        return s;
    }

    /** A non-blocking client socket connecting to the server's {@code port} (the handshake starts). */
    TcpConnection connect(int port) throws IOException {
        TcpConnection c = (TcpConnection) TcpSocket.open(a);
        startConnect(c, server(port));
        return c;
    }

    /** Non-blocking connect: asserts EINPROGRESS. */
    static void startConnect(TcpSocket s, InetSocketAddress to) throws IOException {
        s.setBlocking(false);
        try {
            s.connect(to);
            throw new AssertionError("non-blocking connect returned without EINPROGRESS");
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EINPROGRESS) throw e;
        }
    }

    /** A connected pair: [client, server side]. Time does not move. */
    TcpConnection[] establish(TcpServerSocket srv) throws IOException {
        TcpConnection c = connect(srv.localAddress().getPort());
        assertThat(c.finishConnect()).as("handshake completes synchronously").isTrue();
        TcpConnection s = (TcpConnection) srv.accept();
        assertThat(s).isNotNull();
        s.setBlocking(false);
        return new TcpConnection[] {c, s};
    }

    /** Reads what is queued now (non-blocking), up to {@code max} bytes. */
    static byte[] drain(TcpSocket s, int max) throws IOException {
        byte[] b = new byte[max];
        int n = s.read(b, 0, max);
        return java.util.Arrays.copyOf(b, Math.max(n, 0));
    }

    /**
     * Builds a server-to-client frame (Ethernet + IPv4 + TCP, checksums filled) for
     * {@link FilterDevice#injectInbound}; {@code opts} may be null.
     */
    byte[] craftToClient(int sport, int dport, int seq, int ack, int flags, int window, TcpOptions opts, byte[] payload) {
        return craft(false, sport, dport, seq, ack, flags, window, opts, payload);
    }

    /**
     * Builds a client-to-server frame (Ethernet + IPv4 + TCP, checksums filled) for
     * {@link FilterDevice#injectOutbound}; {@code opts} may be null.
     */
    byte[] craftToServer(int sport, int dport, int seq, int ack, int flags, int window, TcpOptions opts, byte[] payload) {
        return craft(true, sport, dport, seq, ack, flags, window, opts, payload);
    }

    /** Offset of the TCP header in a frame from {@link #craftToClient} or {@link #craftToServer}. */
    static final int TCP_OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;

    /** Fills the TCP checksum of a crafted frame again, after a test edited its header or options. */
    static void refillChecksum(byte[] f, boolean toServer) {
        int src = Ipv4.parseAddress(toServer ? CLIENT_ADDR : SERVER_ADDR);
        int dst = Ipv4.parseAddress(toServer ? SERVER_ADDR : CLIENT_ADDR);
        Tcp.fillChecksum(f, TCP_OFFSET, f.length - TCP_OFFSET, src, dst);
    }

    private byte[] craft(boolean toServer, int sport, int dport, int seq, int ack, int flags, int window, TcpOptions opts,
                         byte[] payload) {
        int optLen = opts == null ? 0 : opts.writtenLength();
        int hl = Tcp.MIN_HEADER_LENGTH + optLen;
        int tcpLen = hl + payload.length;
        byte[] f = new byte[Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + tcpLen];
        int ip = Ethernet.HEADER_LENGTH;
        int t = ip + Ipv4.MIN_HEADER_LENGTH;
        int src = Ipv4.parseAddress(toServer ? CLIENT_ADDR : SERVER_ADDR);
        int dst = Ipv4.parseAddress(toServer ? SERVER_ADDR : CLIENT_ADDR);
        long dstMac = toServer ? veth.b().macAddress() : veth.a().macAddress();
        long srcMac = toServer ? veth.a().macAddress() : veth.b().macAddress();
        Ethernet.write(f, 0, dstMac, srcMac, Ethernet.TYPE_IPV4);
        Ipv4.write(f, ip, 0, Ipv4.MIN_HEADER_LENGTH + tcpLen, 0x1234, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, src, dst);
        Tcp.writeHeader(f, t, sport, dport, seq, ack, hl, flags, window);
        if (opts != null) opts.write(f, t + Tcp.MIN_HEADER_LENGTH);
        System.arraycopy(payload, 0, f, t + hl, payload.length);
        Tcp.fillChecksum(f, t, tcpLen, src, dst);
        return f;
    }

    /** Closes both namespaces; asserts neither caught an internal error. */
    @Override
    public void close() {
        try {
            assertThat(a.internalErrors()).as("client internal errors: %s", a.lastInternalError()).isZero();
            assertThat(b.internalErrors()).as("server internal errors: %s", b.lastInternalError()).isZero();
        } finally {
            a.close();
            b.close();
        }
    }
}
