package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.MsgFlags;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receiver never drops in-order data that fits the window it advertised, whatever the charge (truesize) of
 * the buffers the data arrives in. Over a veth the receiver is charged the sender's own buffers: when a window
 * closing on a slow reader makes the sender cut its 64 KiB segments down to what the window takes (tcp_fragment),
 * or when small writes each leave a partly filled buffer, the segments carry much more charge than bytes. The
 * window must allow for that (Linux: the charge goes with the bytes a split moves, and the window is derived from
 * the free buffer with the measured bytes-to-charge ratio), so that the receive queue is neither pruned
 * (TcpExtRcvPruned) nor in-order data dropped (TcpExtTCPRcvQDrop), and the sender takes no retransmission timeout.
 * The receiver's net.ipv4.tcp_rmem maximum is lowered to 1 MiB so that its buffer stops growing early; the
 * default 6 MiB takes a longer run to get there (an RDS stress load of 16 tasks did).
 */
@Timeout(120)
class TcpReceiveWindowChargeTest {
    private static final int SIZE = 24 << 20;
    /** net.ipv4.tcp_rmem[2] of the receiver, bytes. */
    private static final int RMEM_MAX = 1 << 20;

    @Test
    void largeWritesToASlowReaderAreNeitherPrunedNorDropped() throws Exception {
        run("large", 100_000, 0);
    }

    @Test
    void smallWritesWithMsgMoreToASlowReaderAreNeitherPrunedNorDropped() throws Exception {
        run("more", 1000, MsgFlags.MSG_MORE);
    }

    @Test
    void largeAndTinyWritesWithoutNagleToASlowReaderAreNeitherPrunedNorDropped() throws Exception {
        run("tiny", -1, 0);
    }

    /**
     * {@link #SIZE} bytes from a to b in writes of {@code chunk} bytes with {@code flags} on all but every
     * sixteenth; b's reader takes the first half slowly, 8 KiB at a time (each read reopens a small window that
     * the sender fills with a segment cut to fit), the rest at full speed. The bytes must arrive intact and the
     * counters stay 0.
     */
    private static void run(String name, int chunk, int flags) throws Exception {
        try (NetNamespace a = NetNamespace.create("rcvcharge-" + name + "-a");
             NetNamespace b = NetNamespace.create("rcvcharge-" + name + "-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            // the receive buffer reaches its maximum soon: past it, what the window allowed must fit
            b.sysctl().set("net.ipv4.tcp_rmem", "4096 131072 " + RMEM_MAX);
            byte[] data = pattern(SIZE);
            try (TcpServerSocket srv = TcpServerSocket.open(b)) {
                srv.bind(new InetSocketAddress("10.0.0.2", 5001));
                srv.listen(1);
                CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return srv.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                try (TcpSocket c = TcpSocket.open(a)) {
                    if (chunk < 0) c.setOption(SocketOption.TCP_NODELAY, true);
                    c.connect(new InetSocketAddress("10.0.0.2", 5001));
                    try (TcpSocket s = accepted.get(30, TimeUnit.SECONDS)) {
                        CompletableFuture<Void> w = CompletableFuture.runAsync(() -> write(c, data, chunk, flags));
                        byte[] got = read(s, SIZE);
                        w.get(60, TimeUnit.SECONDS);
                        assertThat(Arrays.equals(got, data)).as("the bytes arrived intact").isTrue();
                    }
                }
            }
            System.out.printf("%s: b TcpExtTCPRcvQDrop %d TcpExtRcvPruned %d TcpExtPruneCalled %d TcpExtTCPRcvCollapsed %d,"
                    + " a TcpExtTCPTimeouts %d%n", name, b.mib().get(MibCounter.TcpExtTCPRcvQDrop),
                    b.mib().get(MibCounter.TcpExtRcvPruned), b.mib().get(MibCounter.TcpExtPruneCalled),
                    b.mib().get(MibCounter.TcpExtTCPRcvCollapsed), a.mib().get(MibCounter.TcpExtTCPTimeouts));
            assertThat(b.mib().get(MibCounter.TcpExtTCPRcvQDrop)).as("in-order data dropped by the receiver").isZero();
            assertThat(b.mib().get(MibCounter.TcpExtRcvPruned)).as("receive queue pruned").isZero();
            assertThat(a.mib().get(MibCounter.TcpExtTCPTimeouts)).as("retransmission timeouts of the sender").isZero();
        }
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < n; i++) b[i] = (byte) r.nextInt();
        return b;
    }

    private static void write(TcpSocket s, byte[] data, int chunk, int flags) {
        try {
            int i = 0;
            for (int off = 0; off < data.length; i++) {
                // chunk -1: 100000 bytes and 100 bytes in turn, each tiny write a segment of its own buffer
                int n = Math.min(chunk > 0 ? chunk : (i % 2 == 0 ? 100_000 : 100), data.length - off);
                int f = (i % 16 == 15 || off + n == data.length) ? 0 : flags;
                off += s.write(data, off, n, f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@code size} bytes: the first half slowly (8 KiB, then a millisecond's pause), the rest at once. */
    private static byte[] read(TcpSocket s, int size) {
        byte[] out = new byte[size];
        try {
            int got = 0;
            while (got < size) {
                boolean slow = got < size / 2;
                int n = s.read(out, got, Math.min(slow ? 8192 : 65536, size - got));
                if (n < 0) return Arrays.copyOf(out, got);
                got += n;
                if (slow) Thread.sleep(1);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
