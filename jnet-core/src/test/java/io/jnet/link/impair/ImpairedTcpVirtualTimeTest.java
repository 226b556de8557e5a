package io.jnet.link.impair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lossy transfer of {@link ImpairedTcpTransferTest} on virtual time, in one thread: non-blocking
 * sockets are pumped and the clock is advanced 1 ms whenever nothing moves, so retransmission timers and
 * delayed frames fire without real waiting.
 */
class ImpairedTcpVirtualTimeTest {
    private static final int SIZE = 2 << 20;
    /** Virtual time allowed for the transfer. */
    private static final long LIMIT_MS = 600_000;

    @Test
    void bidirectionalTransferOnVirtualTime() throws Exception {
        Result r = transfer("loss=2%,dup=1%,reorder=1%,reorder-gap=3,delay=1ms,jitter=500us,seed=7");
        System.out.printf("virtual time: 2 x %d bytes in %d virtual ms (%d ms real)%n", SIZE, r.virtualMs, r.realMs);
        System.out.print(r.summary);
        assertThat(r.summary).contains("egress: ").contains("ingress: ");
        assertThat(r.virtualMs).isPositive().isLessThanOrEqualTo(LIMIT_MS);
    }

    @Test
    void sameSeedSameRunEndToEnd() throws Exception {
        String spec = "loss=1%,corrupt=1%,dup=1%,reorder=1%,seed=11,log=100000";
        Result first = transfer(spec, 256 << 10);
        Result second = transfer(spec, 256 << 10);
        assertThat(first.report).contains("corrupted at byte");
        assertThat(second.report).isEqualTo(first.report);
        assertThat(second.virtualMs).isEqualTo(first.virtualMs);
    }

    private record Result(long virtualMs, long realMs, String summary, String report) {}

    private static Result transfer(String spec) throws Exception {
        return transfer(spec, SIZE);
    }

    private static Result transfer(String spec, int size) throws Exception {
        VirtualClock clock = new VirtualClock();
        long realStart = System.nanoTime();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", ImpairmentConfig.parse(spec));
            long t0 = clock.millis();
            try (TcpServerSocket srv = TcpServerSocket.open(b); TcpSocket c = TcpSocket.open(a)) {
                srv.setBlocking(false);
                srv.bind(new InetSocketAddress("10.0.0.2", 5001));
                srv.listen(4);
                c.setBlocking(false);
                assertThatThrownBy(() -> c.connect(new InetSocketAddress("10.0.0.2", 5001)))
                        .isInstanceOf(ErrnoException.class).hasMessageContaining("EINPROGRESS");
                TcpSocket s = null;
                while (s == null || !c.finishConnect()) {
                    if (s == null) s = srv.accept();
                    if (s == null || !c.finishConnect()) step(clock, t0);
                }
                s.setBlocking(false);
                Pump up = new Pump(c, s, 1, size);
                Pump down = new Pump(s, c, 2, size);
                while (!up.done() || !down.done()) {
                    boolean moved = up.step() | down.step();
                    if (!moved) step(clock, t0);
                }
                s.close();
            }
            long virtualMs = clock.millis() - t0;
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
            ImpairmentCounts e = d.counts(Direction.EGRESS);
            ImpairmentCounts in = d.counts(Direction.INGRESS);
            assertThat(e.dropped() + in.dropped()).isPositive();
            assertThat(e.duplicated() + in.duplicated()).as("dup= took effect").isPositive();
            assertThat(e.reordered() + in.reordered()).as("reorder= took effect").isPositive();
            String summary = "egress: " + e.summary() + "\ningress: " + d.counts(Direction.INGRESS).summary()
                    + "\nretransmitted: a " + a.mib().get(MibCounter.TcpRetransSegs) + ", b "
                    + b.mib().get(MibCounter.TcpRetransSegs) + "\n";
            return new Result(virtualMs, (System.nanoTime() - realStart) / 1_000_000, summary, d.report());
        }
    }

    private static void step(VirtualClock clock, long t0) {
        if (clock.millis() - t0 > LIMIT_MS) throw new AssertionError("no progress within " + LIMIT_MS + " virtual ms");
        clock.advanceMillis(1);
    }

    /** Moves one stream from a writer socket to a reader socket without blocking, checking it by SHA-256. */
    private static final class Pump {
        final TcpSocket from, to;
        final byte[] data;
        final MessageDigest md;
        final byte[] buf = new byte[65536];
        int written, read;
        boolean shut, eof;

        Pump(TcpSocket from, TcpSocket to, long seed, int size) throws Exception {
            this.from = from;
            this.to = to;
            this.data = new byte[size];
            new Random(seed).nextBytes(data);
            md = MessageDigest.getInstance("SHA-256");
        }

        boolean step() throws Exception {
            boolean moved = false;
            if (written < data.length) {
                int n = from.write(data, written, Math.min(65536, data.length - written));
                written += n;
                moved |= n > 0;
            } else if (!shut) {
                from.shutdownOutput();
                shut = true;
                moved = true;
            }
            if (!eof) {
                int n = to.read(buf, 0, buf.length);
                if (n < 0) {
                    eof = true;
                    assertThat(read).isEqualTo(data.length);
                    assertThat(md.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
                    moved = true;
                } else if (n > 0) {
                    md.update(buf, 0, n);
                    read += n;
                    moved = true;
                }
            }
            return moved;
        }

        boolean done() { return eof; }
    }
}
