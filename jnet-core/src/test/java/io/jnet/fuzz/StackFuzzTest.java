package io.jnet.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.link.pcap.PcapReader;
import io.jnet.link.pcap.PcapRecord;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.Interface;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes a namespace's receive path with frames mutated from live connections and from real
 * captures, checksums fixed after mutation so most reach TCP input, aimed at listening and
 * established sockets. Afterwards: no exception escaped, no thread died, every socket is usable or
 * closed cleanly, and every frame received is accounted for: delivered to a transport or counted by
 * exactly one drop counter.
 */
class StackFuzzTest {
    private static final int DEFAULT_FRAMES = 1_000_000;

    @Test
    void millionFramesAreAllAccountedFor() throws Exception {
        run(DEFAULT_FRAMES, 1);
    }

    @Test
    @Tag("long")
    void longFuzz() throws Exception {
        run(Integer.getInteger("jnet.fuzz.frames", 20_000_000), 2);
    }

    private void run(int frames, long seed) throws Exception {
        try (NetNamespace a = NetNamespace.create("fuzz-a"); NetNamespace b = NetNamespace.create("fuzz-b")) {
            VethPair link = VethPair.create("veth0", "veth0b");
            a.attach(link.a());
            b.attach(link.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth0b", "10.0.0.2/24");
            // the fuzzer's own wire into a: frames injected on "fz" arrive on a's veth1
            VethPair inject = VethPair.create("veth1", "fz");
            a.attach(inject.a());
            a.addAddress("veth1", "10.0.1.1/24");
            NetDevice fz = inject.b();
            fz.setReceiver((d, f) -> f.release()); // a's answers on this link are discarded
            Recorder rec = new Recorder();
            a.interpose("veth0", d -> new RecordingDevice(d, rec));

            TcpServerSocket srv = TcpServerSocket.open(a);
            srv.bind(new InetSocketAddress("10.0.0.1", 80));
            srv.listen(64);
            TcpServerSocket srv2 = TcpServerSocket.open(a);
            srv2.bind(new InetSocketAddress("10.0.0.1", 81));
            srv2.listen(64);
            List<TcpSocket[]> conns = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                TcpSocket c = TcpSocket.open(b);
                c.connect(new InetSocketAddress("10.0.0.1", 80));
                TcpSocket s = srv.accept();
                conns.add(new TcpSocket[] {c, s});
                roundTrip(c, s, 3000);
            }
            List<byte[]> templates = new ArrayList<>(rec.frames);
            templates.addAll(captureTemplates(link.a().macAddress()));
            assertThat(templates).hasSizeGreaterThan(50);

            long rxBefore = rxPackets(a);
            Mib before = snapshot(a);
            SplittableRandom rnd = new SplittableRandom(seed);
            long veth1Mac = inject.a().macAddress();
            for (int i = 0; i < frames; i++) {
                byte[] t = templates.get(rnd.nextInt(templates.size()));
                byte[] f = mutate(t, rnd, veth1Mac);
                PacketBuffer p = PacketBuffer.copyOf(f, 0, f.length, PacketBuffer.DEFAULT_HEADROOM);
                fz.transmit(p);
                if ((i & 0xFFFF) == 0) drainAccepts(srv, srv2);
            }
            drainAccepts(srv, srv2);

            // nothing escaped, nothing died
            assertThat(a.internalErrors()).as("exceptions caught in a: %s", a.lastInternalError()).isZero();
            assertThat(b.internalErrors()).as("exceptions caught in b: %s", b.lastInternalError()).isZero();
            assertThat(a.timers().errors()).isZero();

            // accounting: every frame a received is delivered or counted by one drop counter
            long received = rxPackets(a) - rxBefore;
            assertThat(received).isGreaterThanOrEqualTo(frames);
            Mib m = a.mib();
            long linkDrops = delta(m, before, MibCounter.LinkInErrors) + delta(m, before, MibCounter.LinkInUnknownProtos)
                    + rxDroppedAfterCount(a, rec) ;
            long arp = delta(m, before, MibCounter.ArpInRequests) + delta(m, before, MibCounter.ArpInReplies)
                    + delta(m, before, MibCounter.ArpInErrors);
            long ipIn = delta(m, before, MibCounter.IpInReceives);
            assertThat(linkDrops + arp + ipIn).as("link level: frames = link drops + ARP + IP").isEqualTo(received);
            long ipFates = delta(m, before, MibCounter.IpInHdrErrors) + delta(m, before, MibCounter.IpExtInTruncatedPkts)
                    + delta(m, before, MibCounter.IpInAddrErrors) + delta(m, before, MibCounter.IpReasmReqds)
                    - delta(m, before, MibCounter.IpReasmOKs) + delta(m, before, MibCounter.IpInUnknownProtos)
                    + delta(m, before, MibCounter.IpInDelivers);
            assertThat(ipFates).as("IP level: received = header/address drops + fragments + unknown + delivered").isEqualTo(ipIn);
            long transport = delta(m, before, MibCounter.TcpInSegs) + delta(m, before, MibCounter.IcmpInMsgs)
                    + udpFates(m, before);
            assertThat(transport).as("transport level: delivered = TCP + ICMP + UDP fates")
                    .isEqualTo(delta(m, before, MibCounter.IpInDelivers));

            // every socket usable or closed cleanly
            int usable = 0;
            for (TcpSocket[] pair : conns) {
                if (stillUsable(pair[0], pair[1])) usable++;
            }
            System.out.printf("fuzz: %d frames, %d received by a, %d of %d connections still usable, TcpInSegs +%d,"
                            + " TcpInErrs +%d, IpInHdrErrors +%d, challenge ACKs %d, resets sent %d%n",
                    frames, received, usable, conns.size(), delta(m, before, MibCounter.TcpInSegs),
                    delta(m, before, MibCounter.TcpInErrs), delta(m, before, MibCounter.IpInHdrErrors),
                    delta(m, before, MibCounter.TcpExtTCPChallengeACK), delta(m, before, MibCounter.TcpOutRsts));
            // the hostile SACK blocks reached the connections' scoreboards and were weighed there
            System.out.printf("fuzz SACK: TcpExtTCPSACKDiscard +%d, TcpExtTCPDSACKRecv +%d, TcpExtJnetSackOptionMalformed +%d%n",
                    delta(m, before, MibCounter.TcpExtTCPSACKDiscard), delta(m, before, MibCounter.TcpExtTCPDSACKRecv),
                    delta(m, before, MibCounter.TcpExtJnetSackOptionMalformed));
            assertThat(delta(m, before, MibCounter.TcpExtTCPSACKDiscard)).as("SACK blocks discarded").isPositive();
            // listeners still accept
            for (int port : new int[] {80, 81}) {
                try (TcpSocket c = TcpSocket.open(b)) {
                    c.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(5));
                    c.connect(new InetSocketAddress("10.0.0.1", port));
                    TcpSocket s = port == 80 ? acceptReal(srv, c) : acceptReal(srv2, c);
                    roundTrip(c, s, 100);
                    s.close();
                }
            }
            srv.close();
            srv2.close();
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
        }
    }

    // ---- mutation -------------------------------------------------------------------------------

    private static byte[] mutate(byte[] t, SplittableRandom r, long dstMac) {
        byte[] f = t.clone();
        Bytes.put48(f, 0, dstMac);
        int kind = r.nextInt(100);
        boolean ipv4 = f.length >= 34 && Ethernet.etherType(f, 0) == Ethernet.TYPE_IPV4;
        if (kind < 5 || !ipv4) { // raw garbage anywhere
            for (int k = 0, n = 1 + r.nextInt(6); k < n; k++) f[6 + r.nextInt(f.length - 6)] ^= (byte) (1 << r.nextInt(8));
            if (r.nextInt(4) == 0) f = java.util.Arrays.copyOf(f, r.nextInt(f.length + 1));
            return f;
        }
        int ip = Ethernet.HEADER_LENGTH;
        int hl = Math.max(20, Ipv4.headerLength(f, ip));
        int t0 = ip + hl;
        boolean tcp = Ipv4.protocol(f, ip) == Ipv4.PROTO_TCP && f.length >= t0 + 20;
        if (kind < 15) { // IP header fields
            int field = r.nextInt(6);
            switch (field) {
                case 0 -> f[ip] = (byte) ((f[ip] & 0xF0) | r.nextInt(16)); // IHL
                case 1 -> Bytes.put16(f, ip + 2, r.nextInt(65536)); // total length
                case 2 -> Bytes.put16(f, ip + 6, r.nextInt(65536)); // flags / fragment offset
                case 3 -> f[ip + 9] = (byte) (r.nextBoolean() ? 6 : r.nextInt(256)); // protocol
                case 4 -> Bytes.put32(f, ip + 16, r.nextBoolean() ? Ipv4.parseAddress("10.0.0.1") : r.nextInt());
                default -> f[ip + r.nextInt(20)] ^= (byte) (1 << r.nextInt(8));
            }
            if (r.nextInt(8) != 0) fixIpChecksum(f, ip);
            return f;
        }
        if (!tcp) {
            f[t0 + r.nextInt(Math.max(1, f.length - t0))] ^= (byte) r.nextInt(256);
            fixIpChecksum(f, ip);
            return f;
        }
        int thl = Tcp.headerLength(f, t0);
        switch (r.nextInt(11)) {
            case 0 -> Bytes.put32(f, t0 + 4, Tcp.seq(f, t0) + r.nextInt(-70000, 70000)); // seq near the window
            case 1 -> Bytes.put32(f, t0 + 8, Tcp.ack(f, t0) + r.nextInt(-70000, 70000)); // ack near snd.una
            case 2 -> f[t0 + 13] = (byte) r.nextInt(256); // flags
            case 3 -> Bytes.put16(f, t0 + 14, r.nextInt(65536)); // window
            case 4 -> f[t0 + 12] = (byte) (r.nextInt(16) << 4); // data offset
            case 5 -> { // option bytes
                for (int k = 20; k < thl && t0 + k < f.length; k++) if (r.nextInt(3) == 0) f[t0 + k] = (byte) r.nextInt(256);
            }
            case 6 -> Bytes.put16(f, t0 + 2, r.nextBoolean() ? 80 : 81); // aim at the listeners
            case 7 -> { // payload bytes
                if (f.length > t0 + thl) f[t0 + thl + r.nextInt(f.length - t0 - thl)] ^= (byte) r.nextInt(256);
            }
            case 8 -> { // SYN / RST / FIN with random sequence
                f[t0 + 13] = (byte) new int[] {Tcp.SYN, Tcp.RST, Tcp.RST | Tcp.ACK, Tcp.FIN | Tcp.ACK, Tcp.SYN | Tcp.ACK}[r.nextInt(5)];
                Bytes.put32(f, t0 + 4, r.nextInt());
            }
            case 9 -> f = withSackBlocks(f, ip, t0, thl, r); // hostile SACK blocks around the ACK
            default -> { // truncate the segment
                int cut = t0 + r.nextInt(Math.max(1, f.length - t0));
                f = java.util.Arrays.copyOf(f, cut);
                Ipv4.setTotalLength(f, ip, cut - ip);
            }
        }
        if (f.length >= ip + 20) fixIpChecksum(f, ip);
        int tl = Math.min(f.length - ip, Ipv4.totalLength(f, ip)) - hl;
        if (r.nextInt(20) != 0 && tl >= 20 && f.length >= t0 + 20) {
            Tcp.fillChecksum(f, t0, tl, Ipv4.source(f, ip), Ipv4.destination(f, ip));
        }
        return f;
    }

    /**
     * The segment with its options replaced by NOP NOP SACK: 1 to 4 blocks with edges near the ACK (often a block of
     * a few bytes, reversed, or beyond what was sent), sometimes a malformed length.
     */
    private static byte[] withSackBlocks(byte[] f, int ip, int t0, int thl, SplittableRandom r) {
        if (f.length < t0 + thl) return f;
        int blocks = 1 + r.nextInt(4);
        int optLen = 4 + 8 * blocks;
        byte[] g = new byte[t0 + 20 + optLen + (f.length - t0 - thl)];
        System.arraycopy(f, 0, g, 0, t0 + 20);
        System.arraycopy(f, t0 + thl, g, t0 + 20 + optLen, f.length - t0 - thl);
        g[t0 + 12] = (byte) (((20 + optLen) / 4) << 4 | (g[t0 + 12] & 0x0F));
        int o = t0 + 20;
        g[o] = 1;
        g[o + 1] = 1;
        g[o + 2] = 5;
        g[o + 3] = (byte) (r.nextInt(10) == 0 ? r.nextInt(256) : 2 + 8 * blocks);
        int ack = Tcp.ack(f, t0);
        for (int b = 0; b < blocks; b++) {
            int start = ack + r.nextInt(-70000, 70000);
            int end = switch (r.nextInt(4)) {
                case 0 -> start + 1 + r.nextInt(8);
                case 1 -> start - r.nextInt(1000);
                default -> start + r.nextInt(70000);
            };
            Bytes.put32(g, o + 4 + 8 * b, start);
            Bytes.put32(g, o + 8 + 8 * b, end);
        }
        Ipv4.setTotalLength(g, ip, g.length - ip);
        return g;
    }

    private static void fixIpChecksum(byte[] f, int ip) {
        int hl = Ipv4.headerLength(f, ip);
        if (hl >= 20 && ip + hl <= f.length) Ipv4.updateChecksum(f, ip);
    }

    /** Real captures, rewritten to a's address and listener ports so they reach TCP input. */
    private static List<byte[]> captureTemplates(long mac) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (String name : new String[] {"tcp-clean.pcap", "tcp-lossy-sack.pcap", "icmp-udp-rst.pcap"}) {
            try (InputStream in = StackFuzzTest.class.getResourceAsStream("/pcaps/" + name)) {
                Path tmp = Files.createTempFile("fuzz", ".pcap");
                Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                for (PcapRecord rec : PcapReader.readAll(tmp)) {
                    byte[] f = rec.data().clone();
                    if (f.length >= 34 && Ethernet.etherType(f, 0) == Ethernet.TYPE_IPV4) {
                        int ip = Ethernet.HEADER_LENGTH;
                        Ipv4.setDestination(f, ip, Ipv4.parseAddress("10.0.0.1"));
                        Ipv4.setSource(f, ip, Ipv4.parseAddress("10.0.0.2"));
                        Ipv4.updateChecksum(f, ip);
                    }
                    out.add(f);
                }
                Files.delete(tmp);
            }
        }
        return out;
    }

    // ---- checks ---------------------------------------------------------------------------------

    private static void roundTrip(TcpSocket c, TcpSocket s, int n) throws IOException {
        byte[] msg = new byte[n];
        new SplittableRandom(n).nextBytes(msg);
        c.write(msg, 0, n);
        byte[] got = new byte[n];
        int at = 0;
        while (at < n) {
            int k = s.read(got, at, n - at);
            if (k < 0) throw new IOException("EOF");
            at += k;
        }
        assertThat(got).isEqualTo(msg);
    }

    private static boolean stillUsable(TcpSocket c, TcpSocket s) {
        try {
            c.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(3));
            s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(3));
            // injected data may sit in either receive queue: drain what is there first
            drainAvailable(c);
            drainAvailable(s);
            byte[] ping = "ping-after-fuzz".getBytes();
            c.write(ping, 0, ping.length);
            byte[] got = new byte[ping.length];
            int at = 0;
            while (at < got.length) {
                int k = s.read(got, at, got.length - at);
                if (k < 0) return false;
                at += k;
            }
            assertThat(got).as("the stream after the fuzz carries exactly what was written").isEqualTo(ping);
            return true;
        } catch (ErrnoException e) {
            // closed cleanly: the stack reports a defined error (reset by a fuzzed RST, EPIPE, timeout)
            assertThat(e.errno()).isIn(io.jnet.socket.Errno.ECONNRESET, io.jnet.socket.Errno.EPIPE,
                    io.jnet.socket.Errno.ETIMEDOUT, io.jnet.socket.Errno.ECONNABORTED, io.jnet.socket.Errno.EAGAIN);
            return false;
        } catch (IOException e) {
            throw new AssertionError("socket neither usable nor cleanly closed", e);
        } finally {
            c.close();
            s.close();
        }
    }

    private static void drainAvailable(TcpSocket s) throws IOException {
        byte[] buf = new byte[65536];
        while (s.available() > 0) s.read(buf, 0, buf.length);
    }

    private static void drainAccepts(TcpServerSocket... ls) throws IOException {
        for (TcpServerSocket l : ls) {
            l.setBlocking(false);
            TcpSocket s;
            while ((s = l.accept()) != null) s.close();
            l.setBlocking(true);
        }
    }

    private static TcpSocket acceptReal(TcpServerSocket l, TcpSocket client) throws IOException {
        // fuzzed SYNs may have left connections in the accept queue: take the one from our client
        l.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(5));
        while (true) {
            TcpSocket s = l.accept();
            if (s.remoteAddress().equals(client.localAddress())) return s;
            s.close();
        }
    }

    private static long rxPackets(NetNamespace ns) {
        long n = 0;
        for (Interface i : ns.interfaces()) n += i.device().stats().rxPackets.sum();
        return n;
    }

    private static long rxDroppedAfterCount(NetNamespace ns, Recorder rec) {
        long n = 0;
        for (Interface i : ns.interfaces()) n += i.device().stats().rxDropped.sum();
        return n - rec.rxDroppedBefore;
    }

    /** a has no UDP sockets: every UDP datagram is malformed, unwanted (no port) or an unwanted broadcast. */
    private static long udpFates(Mib m, Mib before) {
        return delta(m, before, MibCounter.UdpNoPorts) + delta(m, before, MibCounter.UdpInErrors)
                + delta(m, before, MibCounter.UdpIgnoredMulti);
    }

    private static Mib snapshot(NetNamespace ns) {
        Mib copy = new Mib();
        ns.mib().snapshot().forEach(copy::add);
        return copy;
    }

    private static long delta(Mib now, Mib before, MibCounter c) { return now.get(c) - before.get(c); }

    /** Copies of the frames a receives on its veth to b: live templates. */
    static final class Recorder {
        final List<byte[]> frames = new CopyOnWriteArrayList<>();
        long rxDroppedBefore;
    }

    static final class RecordingDevice extends ForwardingDevice {
        private final Recorder rec;

        RecordingDevice(NetDevice inner, Recorder rec) {
            super(inner);
            this.rec = rec;
        }

        @Override public boolean isLoopback() { return false; }

        @Override
        public void setReceiver(FrameReceiver receiver) {
            inner().setReceiver((d, f) -> {
                if (rec.frames.size() < 2000) rec.frames.add(f.toBytes());
                receiver.receive(this, f);
            });
        }
    }
}
