package io.jnet.rds;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A device decorator on one end of a lossless link (a veth) that resets TCP connections of one port from the
 * wire, as an on-path attacker (tcpkill) would: it follows every connection to or from {@code port} through
 * the frames it passes (the highest sequence number each side has sent, the MAC addresses), and
 * {@link #resetNear()} / {@link #resetFar()} forge a RST that carries exactly the receiver's RCV.NXT, which
 * RFC 5961 3.2 (and jnet's TcpInput) accepts, to this namespace's side or to the far side of the link.
 *
 * <p>Forged frames are delivered from the injector's own thread, never from inside a transmit or a receive
 * (which may run under TCP locks). A RST may still miss when data crosses it (it then draws a challenge ACK
 * and the connection lives on): callers check the effect, e.g. a connection reset counter, and try again.
 */
final class TcpResetInjector extends ForwardingDevice {
    private final NetDevice inner;
    private final int port;
    private final ExecutorService injector = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rst-injector");
        t.setDaemon(true);
        return t;
    });
    private volatile FrameReceiver receiver;
    private final Map<Key, Flow> flows = new HashMap<>();
    private long injected;

    /** One connection as seen from this end: near = this namespace's side. */
    record Key(int nearAddr, int nearPort, int farAddr, int farPort) { }

    private static final class Flow {
        long nearMac, farMac;
        int nearNext, farNext; // one past the highest sequence number each side sent (SYN and FIN count one)
        int nearAck, farAck; // the acknowledgment number each side sent last: its RCV.NXT then
        boolean nearSeen, farSeen, dead;
        int forged; // RSTs forged on it: after MAX_FORGED it counts as dead
    }

    private TcpResetInjector(NetDevice inner, int port) {
        super(inner);
        this.inner = inner;
        this.port = port;
        inner.setReceiver((d, f) -> received(f));
    }

    /** Puts an injector in front of {@code dev} of {@code ns}, watching TCP port {@code port}. */
    static TcpResetInjector interpose(NetNamespace ns, String dev, int port) {
        return (TcpResetInjector) ns.interpose(dev, d -> new TcpResetInjector(d, port));
    }

    @Override
    public void setReceiver(FrameReceiver receiver) { this.receiver = receiver; }

    @Override
    public void transmit(PacketBuffer frame) {
        watch(frame, true);
        inner.transmit(frame);
    }

    private void received(PacketBuffer frame) {
        watch(frame, false);
        FrameReceiver r = receiver;
        if (r == null) {
            frame.release();
            return;
        }
        r.receive(this, frame);
    }

    private void watch(PacketBuffer frame, boolean outbound) {
        byte[] b = frame.array();
        int e = frame.dataStart();
        int head = frame.headLength();
        if (head < Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH) return;
        if (Ethernet.etherType(b, e) != Ethernet.TYPE_IPV4) return;
        int ip = e + Ethernet.HEADER_LENGTH;
        if (Ipv4.protocol(b, ip) != Ipv4.PROTO_TCP || Ipv4.isFragment(b, ip)) return;
        int t = ip + Ipv4.headerLength(b, ip);
        if (t + Tcp.MIN_HEADER_LENGTH > e + head) return;
        int sport = Tcp.sourcePort(b, t);
        int dport = Tcp.destinationPort(b, t);
        if (sport != port && dport != port) return;
        int flags = Tcp.flags(b, t);
        int ipLen = frame.length() - Ethernet.HEADER_LENGTH > 0xFFFF // a GSO frame above 64 KiB: its length field cannot say
                ? frame.length() - Ethernet.HEADER_LENGTH : Ipv4.totalLength(b, ip);
        int payload = ipLen - Ipv4.headerLength(b, ip) - Tcp.headerLength(b, t);
        int end = Tcp.seq(b, t) + payload + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
        int src = Ipv4.source(b, ip);
        int dst = Ipv4.destination(b, ip);
        Key k = outbound ? new Key(src, sport, dst, dport) : new Key(dst, dport, src, sport);
        synchronized (this) {
            Flow f = flows.get(k);
            if ((flags & Tcp.SYN) != 0 && (flags & Tcp.ACK) == 0) { // a new connection on this 4-tuple
                f = new Flow();
                flows.put(k, f);
            }
            if (f == null) return; // began before we watched
            if ((flags & (Tcp.RST | Tcp.FIN)) != 0) {
                f.dead = true;
                return;
            }
            if (outbound) {
                f.nearMac = Ethernet.source(b, e);
                f.farMac = Ethernet.destination(b, e);
                if (!f.nearSeen || Tcp.seqGt(end, f.nearNext)) f.nearNext = end;
                if ((flags & Tcp.ACK) != 0) f.nearAck = Tcp.ack(b, t);
                f.nearSeen = true;
            } else {
                f.farMac = Ethernet.source(b, e);
                f.nearMac = Ethernet.destination(b, e);
                if (!f.farSeen || Tcp.seqGt(end, f.farNext)) f.farNext = end;
                if ((flags & Tcp.ACK) != 0) f.farAck = Tcp.ack(b, t);
                f.farSeen = true;
            }
        }
    }

    /** Connections seen opening and not yet seen closing (FIN) or reset (a RST on the link), nor forged on too often. */
    synchronized List<Key> liveConnections() {
        List<Key> l = new ArrayList<>();
        flows.forEach((k, f) -> {
            if (!f.dead && f.nearSeen && f.farSeen && f.forged < MAX_FORGED) l.add(k);
        });
        return l;
    }

    /** Every connection followed, for failure messages. */
    synchronized String describe() {
        StringBuilder b = new StringBuilder();
        flows.forEach((k, f) -> b.append(Ipv4.addressToString(k.nearAddr())).append(':').append(k.nearPort()).append(" -> ")
                .append(Ipv4.addressToString(k.farAddr())).append(':').append(k.farPort()).append(f.dead ? " dead" : " live")
                .append(f.nearSeen ? "" : " (near side silent)").append(f.farSeen ? "" : " (far side silent)").append("; "));
        return b.toString();
    }

    /** RSTs forged so far. */
    synchronized long injected() { return injected; }

    /**
     * Forges a RST to this namespace's side of every live connection and returns how many; they are delivered by the
     * injector thread before this returns. Its sequence number is the far side's highest (this side's RCV.NXT when
     * it took every segment) on even calls, this side's last acknowledgment number (its RCV.NXT when it last sent)
     * on odd calls, so that a caller that tries again hits either way.
     */
    int resetNear() throws InterruptedException { return reset(true, false); }

    /** As {@link #resetNear()}, to the far side of the link. */
    int resetFar() throws InterruptedException { return reset(false, true); }

    /** Both sides of every live connection, the far side first, then this side, back to back. */
    int resetBoth() throws InterruptedException { return reset(true, true); }

    private long calls;
    /** RSTs forged on one connection at most (a RST that hits leaves no trace on the link to mark it dead). */
    static final int MAX_FORGED = 20;

    private int reset(boolean near, boolean far) throws InterruptedException {
        List<byte[]> toNear = new ArrayList<>();
        List<byte[]> toFar = new ArrayList<>();
        synchronized (this) {
            boolean byAck = (calls++ & 1) != 0;
            flows.forEach((k, f) -> {
                if (f.dead || !f.nearSeen || !f.farSeen || f.forged >= MAX_FORGED) return;
                f.forged++;
                if (near) toNear.add(rst(f.farMac, f.nearMac, k.farAddr, k.farPort, k.nearAddr, k.nearPort, byAck ? f.nearAck : f.farNext));
                if (far) toFar.add(rst(f.nearMac, f.farMac, k.nearAddr, k.nearPort, k.farAddr, k.farPort, byAck ? f.farAck : f.nearNext));
            });
            injected += toNear.size() + toFar.size();
        }
        var done = injector.submit(() -> {
            for (byte[] fr : toFar) inner.transmit(PacketBuffer.copyOf(fr, 0, fr.length, PacketBuffer.DEFAULT_HEADROOM));
            FrameReceiver r = receiver;
            for (byte[] fr : toNear) if (r != null) r.receive(this, PacketBuffer.copyOf(fr, 0, fr.length, PacketBuffer.DEFAULT_HEADROOM));
        });
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("injecting RSTs", e);
        }
        return toNear.size() + toFar.size();
    }

    /** An Ethernet + IPv4 + TCP RST frame with valid checksums. */
    static byte[] rst(long srcMac, long dstMac, int src, int sport, int dst, int dport, int seq) {
        byte[] b = new byte[Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH];
        Ethernet.write(b, 0, dstMac, srcMac, Ethernet.TYPE_IPV4);
        int ip = Ethernet.HEADER_LENGTH;
        Ipv4.write(b, ip, 0, Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH, 0, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, src, dst);
        int t = ip + Ipv4.MIN_HEADER_LENGTH;
        Tcp.writeHeader(b, t, sport, dport, seq, 0, Tcp.MIN_HEADER_LENGTH, Tcp.RST, 0);
        Tcp.fillChecksum(b, t, Tcp.MIN_HEADER_LENGTH, src, dst);
        assert Bytes.u16(b, 12) == Ethernet.TYPE_IPV4;
        return b;
    }

    @Override
    public void close() {
        injector.shutdownNow();
        super.close();
    }
}
