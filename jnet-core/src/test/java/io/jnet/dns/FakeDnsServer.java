package io.jnet.dns;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.DnsMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A DNS server played by the test in a jnet namespace: UDP (and optionally TCP) on port 53 of one address, each
 * query answered with whatever {@code handler} returns: a list of datagrams to send back (empty: stay silent), each
 * from port 53 or, to play a stranger, from another port.
 */
final class FakeDnsServer implements AutoCloseable {

    /** One datagram to send back; {@code fromOtherPort} sends it from port 5353 of the same address. */
    record Reply(byte[] bytes, boolean fromOtherPort) {
        static Reply of(DnsMessage m) { return new Reply(m.encode(), false); }
    }

    private final UdpSocket udp;
    private final UdpSocket stranger;
    private final TcpServerSocket tcp;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    final List<DnsMessage> udpQueries = new CopyOnWriteArrayList<>();
    final List<DnsMessage> tcpQueries = new CopyOnWriteArrayList<>();
    final AtomicInteger received = new AtomicInteger();

    /**
     * @param udpHandler the replies to a query over UDP
     * @param tcpHandler the answer to a query over TCP, or null to listen on no TCP port
     */
    FakeDnsServer(NetNamespace ns, String address, Function<DnsMessage, List<Reply>> udpHandler,
            Function<DnsMessage, DnsMessage> tcpHandler) throws IOException {
        udp = UdpSocket.open(ns);
        udp.bind(new InetSocketAddress(address, 53));
        stranger = UdpSocket.open(ns);
        stranger.bind(new InetSocketAddress(address, 5353));
        start("udp", () -> {
            byte[] buf = new byte[65536];
            while (true) {
                UdpSocket.Datagram d = udp.receive(buf, 0, buf.length);
                received.incrementAndGet();
                DnsMessage q = DnsMessage.parse(buf, 0, d.length());
                udpQueries.add(q);
                for (Reply r : udpHandler.apply(q)) {
                    (r.fromOtherPort() ? stranger : udp).send(r.bytes(), 0, r.bytes().length, d.sender());
                }
            }
        });
        if (tcpHandler != null) {
            tcp = TcpServerSocket.open(ns);
            tcp.bind(new InetSocketAddress(address, 53));
            tcp.listen(8);
            start("tcp", () -> {
                while (true) {
                    try (TcpSocket c = tcp.accept()) {
                        byte[] len = c.inputStream().readNBytes(2);
                        byte[] q = c.inputStream().readNBytes(Bytes.u16(len, 0));
                        DnsMessage query = DnsMessage.parse(q, 0, q.length);
                        tcpQueries.add(query);
                        byte[] a = tcpHandler.apply(query).encode();
                        byte[] out = new byte[2 + a.length];
                        Bytes.put16(out, 0, a.length);
                        System.arraycopy(a, 0, out, 2, a.length);
                        c.outputStream().write(out);
                        c.outputStream().flush();
                        c.shutdownOutput();
                        c.inputStream().read(); // wait for the client's close
                    }
                }
            });
        } else {
            tcp = null;
        }
    }

    private interface Loop {
        void run() throws Exception;
    }

    private void start(String name, Loop loop) {
        Thread t = Thread.ofPlatform().daemon().name("fake-dns-" + name).start(() -> {
            try {
                loop.run();
            } catch (Exception closed) {
                // the sockets were closed: the server ends
            }
        });
        threads.add(t);
    }

    @Override
    public void close() throws InterruptedException {
        udp.close();
        stranger.close();
        if (tcp != null) tcp.close();
        for (Thread t : threads) t.join(5000);
    }
}
