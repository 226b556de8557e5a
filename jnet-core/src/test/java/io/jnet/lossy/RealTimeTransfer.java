package io.jnet.lossy;

import io.jnet.link.VethPair;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentCounts;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one {@link LossyCase} on real time with blocking sockets: the set-up of {@link VirtualTransfer}
 * (impaired veth, SO_SNDBUF/SO_RCVBUF on both ends), one writer and one reader thread per direction.
 */
final class RealTimeTransfer {
    private RealTimeTransfer() {}

    /**
     * @param boundMs real ms allowed from connect to both ends' end of stream
     * @throws AssertionError when the transfer does not finish in time or data arrive altered
     */
    static TransferResult run(LossyCase c, long boundMs) throws Exception {
        long start = System.nanoTime();
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", VirtualTransfer.A_IP + "/24");
            b.addAddress("veth1", VirtualTransfer.B_IP + "/24");
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                ns.sysctl().wmemMax.set(VirtualTransfer.MEM_MAX);
                ns.sysctl().rmemMax.set(VirtualTransfer.MEM_MAX);
            }
            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", c.impairment());
            byte[] up = StreamPump.data(c.bytes(), c.seed() * 2 + 1);
            byte[] down = StreamPump.data(c.bytes(), c.seed() * 2 + 2);
            try (TcpServerSocket srv = TcpServerSocket.open(b); TcpSocket client = TcpSocket.open(a)) {
                srv.setOption(SocketOption.SO_SNDBUF, c.buffer());
                srv.setOption(SocketOption.SO_RCVBUF, c.buffer());
                srv.bind(new InetSocketAddress(VirtualTransfer.B_IP, VirtualTransfer.PORT));
                srv.listen(4);
                client.setOption(SocketOption.SO_SNDBUF, c.buffer());
                client.setOption(SocketOption.SO_RCVBUF, c.buffer());
                CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return srv.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                client.connect(new InetSocketAddress(VirtualTransfer.B_IP, VirtualTransfer.PORT));
                try (TcpSocket s = accepted.get(60, TimeUnit.SECONDS)) {
                    CompletableFuture<?> all = CompletableFuture.allOf(
                            CompletableFuture.runAsync(() -> writeAll(client, up, c.writeSize())),
                            CompletableFuture.runAsync(() -> writeAll(s, down, c.writeSize())),
                            CompletableFuture.runAsync(() -> readAndCheck(s, up, "a->b")),
                            CompletableFuture.runAsync(() -> readAndCheck(client, down, "b->a")));
                    try {
                        all.get(boundMs, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        throw new AssertionError("not finished within " + boundMs + " ms: client " + client.state() + ", server "
                                + s.state() + "\n" + VirtualTransfer.counters(a, b, d));
                    }
                }
            }
            long elapsed = (System.nanoTime() - start) / 1_000_000;
            if (a.internalErrors() + b.internalErrors() != 0) throw new AssertionError("internal errors in the stack");
            ImpairmentCounts e = d.counts(Direction.EGRESS);
            ImpairmentCounts i = d.counts(Direction.INGRESS);
            return new TransferResult(c, elapsed, boundMs, elapsed,
                    a.mib().get(MibCounter.TcpRetransSegs) + b.mib().get(MibCounter.TcpRetransSegs),
                    a.mib().get(MibCounter.TcpExtTCPTimeouts) + b.mib().get(MibCounter.TcpExtTCPTimeouts),
                    a.mib().get(MibCounter.TcpExtTCPFastRetrans) + b.mib().get(MibCounter.TcpExtTCPFastRetrans),
                    e.frames() + i.frames(), e.dropped() + i.dropped(), e.duplicated() + i.duplicated(),
                    e.reordered() + i.reordered());
        }
    }

    private static void writeAll(TcpSocket s, byte[] data, int writeSize) {
        try {
            for (int off = 0; off < data.length; off += writeSize) s.write(data, off, Math.min(writeSize, data.length - off));
            s.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void readAndCheck(TcpSocket s, byte[] sent, String what) {
        try {
            MessageDigest md = StreamPump.sha256();
            byte[] buf = new byte[64 << 10];
            long total = 0;
            int n;
            while ((n = s.read(buf, 0, buf.length)) > 0) {
                md.update(buf, 0, n);
                total += n;
            }
            String got = HexFormat.of().formatHex(md.digest());
            String want = HexFormat.of().formatHex(StreamPump.sha256().digest(sent));
            if (total != sent.length || !got.equals(want)) {
                throw new AssertionError(what + ": received " + total + " bytes, SHA-256 " + got + "; sent " + sent.length + ", " + want);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
