package io.jnet.lossy;

import io.jnet.link.VethPair;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentCounts;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Errno;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * Runs one {@link LossyCase} on virtual time in the calling thread: two namespaces joined by a veth whose
 * end in namespace {@code a} is wrapped in an {@link ImpairedDevice} impairing both directions; a client
 * in {@code a} and a server in {@code b} with the case's SO_SNDBUF/SO_RCVBUF, non-blocking; both send
 * at once. The sockets are pumped until nothing moves, then the clock advances 1 ms, so timers and
 * delayed frames fire without waiting, and the same case always runs the same way.
 */
final class VirtualTransfer {
    static final String A_IP = "10.0.0.1";
    static final String B_IP = "10.0.0.2";
    static final int PORT = 5001;
    /** net.core.wmem_max and rmem_max in both namespaces, so that 4 MiB requests are honoured. */
    static final int MEM_MAX = 16 << 20;

    private VirtualTransfer() {}

    /**
     * @throws AssertionError when the transfer does not finish within the case's bound (with the sockets'
     *     states, the counters and the last impairment events), when data arrive altered, or when a
     *     namespace reports an internal error
     */
    static TransferResult run(LossyCase c) throws IOException {
        return run(c, TransferBound.millis(c), null);
    }

    /**
     * As {@link #run(LossyCase)} with another bound, and a capture of the link at {@code b}'s end (behind
     * the impairment's egress, before its ingress) written to {@code pcap} unless it is null, with
     * timestamps of the virtual clock from the Unix epoch.
     */
    static TransferResult run(LossyCase c, long bound, Path pcap) throws IOException {
        return run(c, bound, pcap, new String[0]);
    }

    /**
     * As {@link #run(LossyCase)} with sysctls set in both namespaces: {@code name} alone sets a boolean one to 1,
     * {@code name=value} sets it to that value.
     */
    static TransferResult runWith(LossyCase c, String... switchedOn) throws IOException {
        return run(c, TransferBound.millis(c), null, switchedOn);
    }

    /** As {@link #runWith(LossyCase, String...)} with another bound. */
    static TransferResult runWith(LossyCase c, long bound, String... sysctls) throws IOException {
        return run(c, bound, null, sysctls);
    }

    private static TransferResult run(LossyCase c, long bound, Path pcap, String[] switchedOn) throws IOException {
        long realStart = System.nanoTime();
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", A_IP + "/24");
            b.addAddress("veth1", B_IP + "/24");
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                ns.sysctl().wmemMax.set(MEM_MAX);
                ns.sysctl().rmemMax.set(MEM_MAX);
                for (String sysctl : switchedOn) {
                    int eq = sysctl.indexOf('=');
                    if (eq < 0) ns.sysctl().set(sysctl, "1");
                    else ns.sysctl().set(sysctl.substring(0, eq), sysctl.substring(eq + 1));
                }
            }
            if (pcap != null) {
                PcapWriter w = PcapWriter.create(pcap);
                b.interpose("veth1", dev -> new PcapSniffer(dev, w, clock::nanoTime, true));
            }
            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", c.impairment());
            long t0 = clock.millis();
            try (TcpServerSocket srv = TcpServerSocket.open(b); TcpSocket client = TcpSocket.open(a)) {
                srv.setOption(SocketOption.SO_SNDBUF, c.buffer());
                srv.setOption(SocketOption.SO_RCVBUF, c.buffer());
                srv.setBlocking(false);
                srv.bind(new InetSocketAddress(B_IP, PORT));
                srv.listen(4);
                client.setOption(SocketOption.SO_SNDBUF, c.buffer());
                client.setOption(SocketOption.SO_RCVBUF, c.buffer());
                client.setBlocking(false);
                try {
                    client.connect(new InetSocketAddress(B_IP, PORT));
                    throw new AssertionError("non-blocking connect returned at once");
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.EINPROGRESS) throw e;
                }
                TcpSocket server = null;
                while (server == null || !client.finishConnect()) {
                    if (server == null) server = srv.accept();
                    if (server == null || !client.finishConnect()) {
                        advance(clock, t0, bound, () -> "handshake: client " + client.state() + "\n" + counters(a, b, d));
                    }
                }
                try (TcpSocket s = server) {
                    s.setBlocking(false);
                    if (bound == TransferBound.millis(c)) { // the model's bound, not one given by the caller
                        long rtoMs = Math.max(client.info().rto(), s.info().rto()) / 1000;
                        bound = TransferBound.millis(c, rtoMs);
                    }
                    checkBuffers(client, c);
                    checkBuffers(s, c);
                    StreamPump up = new StreamPump(client, s, c.bytes(), c.writeSize(), c.seed() * 2 + 1);
                    StreamPump down = new StreamPump(s, client, c.bytes(), c.writeSize(), c.seed() * 2 + 2);
                        long dataBound = bound;
                    while (!up.done() || !down.done()) {
                        boolean moved = up.step() | down.step();
                        if (!moved) {
                            advance(clock, t0, dataBound, () -> "a->b " + up + "; b->a " + down + "\nclient " + client.state()
                                    + ", server " + s.state() + "\n" + counters(a, b, d));
                        }
                    }
                }
            }
            long elapsed = clock.millis() - t0;
            if (a.internalErrors() + b.internalErrors() != 0) {
                throw new AssertionError("internal errors: a " + a.internalErrors() + ", b " + b.internalErrors(),
                        a.internalErrors() != 0 ? a.lastInternalError() : b.lastInternalError());
            }
            ImpairmentCounts e = d.counts(Direction.EGRESS);
            ImpairmentCounts i = d.counts(Direction.INGRESS);
            return new TransferResult(c, elapsed, bound, (System.nanoTime() - realStart) / 1_000_000,
                    sum(a, b, MibCounter.TcpRetransSegs), sum(a, b, MibCounter.TcpExtTCPTimeouts),
                    sum(a, b, MibCounter.TcpExtTCPFastRetrans), e.frames() + i.frames(), e.dropped() + i.dropped(),
                    e.duplicated() + i.duplicated(), e.reordered() + i.reordered());
        }
    }

    /** Linux doubles SO_SNDBUF/SO_RCVBUF; an accepted socket inherits the listener's. */
    private static void checkBuffers(TcpSocket s, LossyCase c) throws IOException {
        int snd = s.getOption(SocketOption.SO_SNDBUF);
        int rcv = s.getOption(SocketOption.SO_RCVBUF);
        if (snd != 2 * c.buffer() || rcv != 2 * c.buffer()) {
            throw new AssertionError(s + ": SO_SNDBUF " + snd + ", SO_RCVBUF " + rcv + ", expected " + 2 * c.buffer() + " each");
        }
    }

    private static void advance(VirtualClock clock, long t0, long boundMs, java.util.function.Supplier<String> why) {
        if (clock.millis() - t0 > boundMs) {
            throw new AssertionError("not finished within the bound of " + boundMs + " virtual ms: " + why.get());
        }
        clock.advanceMillis(1);
    }

    private static long sum(NetNamespace a, NetNamespace b, MibCounter counter) {
        return a.mib().get(counter) + b.mib().get(counter);
    }

    /** TCP counters of both namespaces and the tail of the impairment report, for failure messages. */
    static String counters(NetNamespace a, NetNamespace b, ImpairedDevice d) {
        StringBuilder out = new StringBuilder();
        for (NetNamespace ns : new NetNamespace[] {a, b}) {
            out.append("-- ").append(ns.name()).append(": ");
            ns.mib().toNstatString().lines().filter(l -> l.startsWith("Tcp")).forEach(l -> out.append(l.strip()).append("; "));
            out.append('\n');
        }
        String report = d.report();
        out.append(report.length() > 3000 ? "..." + report.substring(report.length() - 3000) : report);
        return out.toString();
    }
}
