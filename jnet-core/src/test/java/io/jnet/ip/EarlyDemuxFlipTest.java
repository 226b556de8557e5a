package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.socket.UdpSocket.Datagram;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import io.jnet.stack.Sysctl;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * net.ipv4.ip_early_demux, tcp_early_demux and udp_early_demux each flipped 10,000 times from another thread while
 * TCP, connected UDP and unconnected UDP traffic runs from host A (10.0.1.1) to host B (10.0.1.2): every byte and
 * datagram reaches the right socket with the right payload, and every datagram is received or counted as dropped.
 */
class EarlyDemuxFlipTest {
    private static final String A = "10.0.1.1";
    private static final String B = "10.0.1.2";
    private static final int FLIPS = 10_000;

    private NetNamespace a;
    private NetNamespace b;

    @BeforeEach
    void create() {
        a = NetNamespace.create("flip-a");
        b = NetNamespace.create("flip-b");
        Topology.link(a, b, "eth0", A + "/24", B + "/24");
    }

    @AfterEach
    void close() {
        for (NetNamespace ns : new NetNamespace[] {a, b}) {
            assertThat(ns.internalErrors()).as(ns.name() + " internal errors").isZero();
            ns.close();
        }
    }

    private static InetSocketAddress addr(String host, int port) { return new InetSocketAddress(host, port); }

    private static byte[] ascii(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    /** Byte {@code k} of the TCP stream. */
    private static byte streamByte(long k) { return (byte) (k * 31 + 7); }

    @Test
    void flippingEachSwitchUnderLoadMisdeliversNothingAndAccountsForEveryDatagram() throws Exception {
        TcpServerSocket l = TcpServerSocket.open(b);
        l.bind(addr(B, 5101));
        l.listen(4);
        try (TcpSocket c = TcpSocket.open(a)) {
            c.connect(addr(B, 5101));
            try (TcpSocket server = l.accept();
                 UdpSocket ua = UdpSocket.open(a); UdpSocket ub = UdpSocket.open(b);
                 UdpSocket x1 = UdpSocket.open(a); UdpSocket x2 = UdpSocket.open(a); UdpSocket uu = UdpSocket.open(b);
                 UdpSocket stranger = UdpSocket.open(a)) {
                l.close();
                ua.bind(addr(A, 6101));
                ub.bind(addr(B, 6102));
                ua.connect(addr(B, 6102));
                ub.connect(addr(A, 6101));
                x1.bind(addr(A, 6103));
                x2.bind(addr(A, 6104));
                stranger.bind(addr(A, 6106));
                uu.bind(addr("0.0.0.0", 6105));
                ub.setBlocking(false);
                uu.setBlocking(false);
                long noPorts0 = b.mib().get(MibCounter.UdpNoPorts);
                long drops0 = b.mib().get(MibCounter.UdpRcvbufErrors) + b.mib().get(MibCounter.UdpInErrors);

                Sysctl[] switches = {b.sysctl().ipEarlyDemux, b.sysctl().tcpEarlyDemux, b.sysctl().udpEarlyDemux};
                AtomicReference<Throwable> flipError = new AtomicReference<>();
                Thread flipper = Thread.ofPlatform().name("flipper").start(() -> {
                    try {
                        for (int i = 0; i < FLIPS; i++) {
                            for (Sysctl s : switches) {
                                s.set(s.enabled() ? "0" : "1");
                                LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(20_000));
                            }
                        }
                    } catch (Throwable t) {
                        flipError.set(t);
                    }
                });

                byte[] chunk = new byte[700];
                byte[] in = new byte[2048];
                long tcpSent = 0;
                long tcpRead = 0;
                int cSent = 0, cRecv = 0, xSent = 0, xRecv = 0, sSent = 0;
                int[] xNext = new int[2];
                int round = 0;
                int roundsWhileFlipping = 0;
                while (flipper.isAlive() || round < 100) {
                    if (flipper.isAlive()) roundsWhileFlipping++;
                    for (int k = 0; k < chunk.length; k++) chunk[k] = streamByte(tcpSent + k);
                    c.write(chunk, 0, chunk.length);
                    tcpSent += chunk.length;
                    while (tcpRead < tcpSent) {
                        int n = server.read(in, 0, (int) Math.min(in.length, tcpSent - tcpRead));
                        assertThat(n).isPositive();
                        for (int k = 0; k < n; k++) {
                            if (in[k] != streamByte(tcpRead + k)) throw new AssertionError("TCP byte " + (tcpRead + k) + " wrong");
                        }
                        tcpRead += n;
                    }
                    byte[] p = ascii("c" + cSent);
                    ua.send(p, 0, p.length, null);
                    cSent++;
                    p = ascii("x0:" + (xSent / 2));
                    x1.send(p, 0, p.length, addr(B, 6105));
                    p = ascii("x1:" + (xSent / 2));
                    x2.send(p, 0, p.length, addr(B, 6105));
                    xSent += 2;
                    if (round % 8 == 0) { // not for the connected socket: no socket takes it (UdpNoPorts)
                        p = ascii("s" + sSent);
                        stranger.send(p, 0, p.length, addr(B, 6102));
                        sSent++;
                    }
                    cRecv += drainConnected(ub, in, cRecv);
                    xRecv += drainUnconnected(uu, in, xNext);
                    round++;
                }
                flipper.join();
                assertThat(flipError.get()).isNull();
                // everything sent has been handed to B's receive path by now (veth delivers in the sender's
                // thread or B's backlog): wait for the counts to settle
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (System.nanoTime() < deadline) {
                    cRecv += drainConnected(ub, in, cRecv);
                    xRecv += drainUnconnected(uu, in, xNext);
                    long drops = b.mib().get(MibCounter.UdpRcvbufErrors) + b.mib().get(MibCounter.UdpInErrors) - drops0;
                    long noPorts = b.mib().get(MibCounter.UdpNoPorts) - noPorts0;
                    if (cRecv + xRecv + drops == cSent + xSent && noPorts == sSent) break;
                    LockSupport.parkNanos(10_000_000L);
                }
                long drops = b.mib().get(MibCounter.UdpRcvbufErrors) + b.mib().get(MibCounter.UdpInErrors) - drops0;
                assertThat(cRecv + xRecv + drops).as("datagrams received or counted as dropped").isEqualTo(cSent + xSent);
                assertThat(b.mib().get(MibCounter.UdpNoPorts) - noPorts0).as("stranger datagrams").isEqualTo(sSent);
                assertThat(tcpRead).isEqualTo(tcpSent);
                assertThat(roundsWhileFlipping).as("traffic rounds during the flips").isPositive();
                assertThat(tcpRead).isPositive();
                assertThat(cRecv).isPositive();
                assertThat(xRecv).isPositive();
            }
        }
    }

    /** Reads what the connected socket holds: only "c<n>" from A:6101, in order (veth keeps order). */
    private static int drainConnected(UdpSocket ub, byte[] in, int next) throws Exception {
        int got = 0;
        for (Datagram d; (d = ub.receive(in, 0, in.length)) != null; got++) {
            assertThat(d.sender()).isEqualTo(addr(A, 6101));
            String s = new String(in, 0, d.length(), StandardCharsets.US_ASCII);
            assertThat(s).startsWith("c");
            assertThat(Integer.parseInt(s.substring(1))).isGreaterThanOrEqualTo(next + got);
        }
        return got;
    }

    /** Reads what the unconnected socket holds: "x0:<n>" only from A:6103, "x1:<n>" only from A:6104. */
    private static int drainUnconnected(UdpSocket uu, byte[] in, int[] next) throws Exception {
        int got = 0;
        for (Datagram d; (d = uu.receive(in, 0, in.length)) != null; got++) {
            String s = new String(in, 0, d.length(), StandardCharsets.US_ASCII);
            assertThat(s).matches("x[01]:\\d+");
            int who = s.charAt(1) - '0';
            assertThat(d.sender()).isEqualTo(addr(A, 6103 + who));
            int n = Integer.parseInt(s.substring(3));
            assertThat(n).isGreaterThanOrEqualTo(next[who]);
            next[who] = n + 1;
        }
        return got;
    }
}
