package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.TapStack;
import io.jnet.buffer.PacketBuffer;
import io.jnet.link.tap.TapDevice;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The out-of-order queue against a live path: a jnet namespace on a TAP device whose kernel side is in a
 * fresh Linux network namespace (192.0.2.1/24, jnet at 192.0.2.2). The kernel opens a real TCP connection
 * to a jnet listener (python3, an ordinary socket that then stays idle); segments of that connection are
 * then crafted and written into the TAP from the kernel side (python3, an AF_PACKET socket on the
 * interface): 10,000 one-byte segments at every other offset in descending order with a hole at the first
 * byte, then the segments that fill the holes, then retransmissions from what jnet acknowledges, as a
 * sender would after jnet dropped data it had no room for. Every byte must arrive in order, and the memory
 * jnet charges to the connection must stay within its receive buffer (SO_RCVBUF fixed, so that it prunes).
 */
class TcpOutOfOrderKernelTest {
    static final String KERNEL_IP = "192.0.2.1";
    static final String JNET_IP = "192.0.2.2";
    static final int PORT = 5001;
    static final int COUNT = 10_000;
    /** Most a crafted segment is charged: a TAP device's headroom plus a frame of 1,000 bytes of text with timestamps. */
    static final int MAX_SEGMENT_CHARGE = PacketBuffer.DEFAULT_HEADROOM + Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH
            + Tcp.MIN_HEADER_LENGTH + 12 + 1000;

    /** Opens the kernel's connection and keeps it idle: the test writes its segments. */
    static final String CONNECT = """
            import socket, time
            s = socket.create_connection(("%s", %d), timeout=10)
            print(s.getsockname()[1], flush=True)
            time.sleep(600)
            """.formatted(JNET_IP, PORT);

    /** Writes frames (each preceded by its length, 2 bytes big-endian) out of an interface, paced. */
    static final String WRITE_FRAMES = """
            import socket, struct, sys, time
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((sys.argv[1], 0))
            data = open(sys.argv[2], "rb").read()
            i = n = 0
            while i < len(data):
                (l,) = struct.unpack_from(">H", data, i)
                s.send(data[i + 2:i + 2 + l])
                i += 2 + l
                n += 1
                if n % 32 == 0:
                    time.sleep(0.001)
            print(n)
            """;

    @TempDir
    Path tmp;

    @BeforeEach
    void needsRootAndPython() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("python3");
    }

    @Test
    void tenThousandOneByteSegmentsOutOfOrderFromTheKernelSideThenTheFill() throws Exception {
        try (TapStack stack = TapStack.open(new TapStack.Config("jnetofo%d", JNET_IP + "/24", TapDevice.DEFAULT_MTU, null));
             LinuxNetns netns = LinuxNetns.create()) {
            String dev = stack.ifname();
            netns.moveLink(dev);
            netns.sysctl("net.ipv6.conf." + dev + ".disable_ipv6", "1");
            netns.addAddress(dev, KERNEL_IP + "/24");
            netns.linkUp("lo");
            netns.linkUp(dev);
            // room in the TAP's queue for every frame of a burst: the test wants them all to reach jnet
            netns.execChecked("ip", "link", "set", "dev", dev, "txqueuelen", "30000");
            NetNamespace ns = stack.namespace();
            TcpServerSocket srv = TcpServerSocket.open(ns);
            srv.setOption(SocketOption.SO_RCVBUF, 32768);
            srv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(15));
            srv.bind(new InetSocketAddress(stack.address(), PORT));
            srv.listen(4);
            BackgroundProcess kernel = netns.start("python3", "-c", CONNECT);
            TcpConnection c = (TcpConnection) srv.accept();
            c.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(30));

            Crafter crafter = new Crafter(c, Ethernet.parseMac(netns.exec("cat", "/sys/class/net/" + dev + "/address")
                    .checkSuccess().stdout().strip()), stack.tap().macAddress());
            int end = 2 * COUNT + 1;
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            AtomicReference<Throwable> readError = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().name("ofo-reader").start(() -> {
                byte[] b = new byte[65536];
                try {
                    while (received.size() < end) {
                        int n = c.read(b, 0, b.length);
                        if (n < 0) break;
                        received.write(b, 0, n);
                    }
                } catch (IOException | RuntimeException e) {
                    readError.set(e);
                }
            });
            AtomicLong maxOver = new AtomicLong(Long.MIN_VALUE);
            Thread monitor = Thread.ofPlatform().name("ofo-memory").start(() -> {
                while (reader.isAlive()) {
                    c.lock.lock();
                    try {
                        maxOver.accumulateAndGet(c.rmemAlloc() - c.rcvbuf, Math::max);
                    } finally {
                        c.lock.release();
                    }
                    try {
                        Thread.sleep(Duration.ofNanos(200_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });

            // 10,000 one-byte segments, descending, every other offset, then the fill
            for (int i = 2 * COUNT; i >= 2; i -= 2) crafter.add(i, i + 1);
            crafter.add(0, 1);
            for (int i = 1; i < end; i += 2) crafter.add(i, i + 1);
            crafter.write(netns, dev, tmp.resolve("ofo.frames"));
            // then what a sender does: resend from the acknowledged offset until all is acknowledged
            int rounds = 0;
            for (int acked = crafter.ackedWhenQuiet(); acked < end; acked = crafter.ackedWhenQuiet()) {
                assertThat(++rounds).as("retransmission rounds, %d of %d bytes acknowledged", acked, end).isLessThanOrEqualTo(20);
                for (int from = acked; from < end; from += 1000) crafter.add(from, Math.min(end, from + 1000));
                crafter.write(netns, dev, tmp.resolve("retransmit" + rounds + ".frames"));
            }
            reader.join(30_000);
            monitor.join(5_000);
            String counters = ns.mib().toNstatString();
            String kernelDropped = netns.exec("cat", "/sys/class/net/" + dev + "/statistics/tx_dropped").stdout().strip();
            System.out.printf("kernel-side crafted: %d one-byte segments out of order then the fill, %d retransmission"
                            + " rounds; rcvbuf %d, most memory charged above it %d; tap %s, kernel tx_dropped %s%n%s",
                    COUNT, rounds, c.rcvbuf, maxOver.get(), stack.tap().stats(), kernelDropped, counters);
            assertThat(kernelDropped).as("frames the kernel could not queue to the TAP").isEqualTo("0");
            assertThat(readError.get()).isNull();
            assertThat(received.toByteArray()).as("the stream, in order").isEqualTo(CraftedSender.data(0, end));
            assertThat(maxOver.get()).as("memory charged beyond the receive buffer (at most the last segment)")
                    .isLessThanOrEqualTo(MAX_SEGMENT_CHARGE);
            assertThat(c.rcvbuf).isEqualTo(65536);
            assertThat(ns.mib().get(MibCounter.TcpExtTCPOFOQueue)).isPositive();
            assertThat(ns.mib().get(MibCounter.TcpExtOfoPruned)).as("the queue was pruned").isPositive();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
            assertThat(kernel.isAlive()).as("the kernel's connection is still open").isTrue();
            c.close();
            srv.close();
        }
    }

    /** Builds segments of the kernel's connection, as the kernel would send them, and writes them into the TAP. */
    static final class Crafter {
        final TcpConnection c;
        final long kernelMac;
        final long jnetMac;
        final int base;
        final int ack;
        final int tsVal;
        final boolean timestamps;
        final ByteArrayOutputStream frames = new ByteArrayOutputStream();
        int count;

        Crafter(TcpConnection c, long kernelMac, long jnetMac) {
            this.c = c;
            this.kernelMac = kernelMac;
            this.jnetMac = jnetMac;
            c.lock.lock();
            try {
                this.base = c.rcvNxt;
                this.ack = c.sndNxt;
                this.tsVal = c.tsRecent;
                this.timestamps = c.tsEnabled;
            } finally {
                c.lock.release();
            }
        }

        /** Adds the segment carrying stream bytes [from, to). */
        void add(int from, int to) {
            TcpOptions o = new TcpOptions();
            if (timestamps) {
                o.hasTimestamp = true;
                o.tsVal = tsVal;
                o.tsEcr = 0;
            }
            byte[] payload = CraftedSender.data(from, to);
            int hl = Tcp.MIN_HEADER_LENGTH + o.writtenLength();
            int tcpLen = hl + payload.length;
            byte[] f = new byte[Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + tcpLen];
            int ip = Ethernet.HEADER_LENGTH;
            int t = ip + Ipv4.MIN_HEADER_LENGTH;
            int src = c.remoteAddr;
            int dst = c.localAddr;
            Ethernet.write(f, 0, jnetMac, kernelMac, Ethernet.TYPE_IPV4);
            Ipv4.write(f, ip, 0, Ipv4.MIN_HEADER_LENGTH + tcpLen, count & 0xFFFF, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, src, dst);
            Tcp.writeHeader(f, t, c.remotePort, c.localPort, base + from, ack, hl, Tcp.ACK, 1024);
            o.write(f, t + Tcp.MIN_HEADER_LENGTH);
            System.arraycopy(payload, 0, f, t + hl, payload.length);
            Tcp.fillChecksum(f, t, tcpLen, src, dst);
            try {
                new DataOutputStream(frames).writeShort(f.length);
                frames.write(f);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            count++;
        }

        /** Writes the frames added since the last call out of the kernel side of the TAP. */
        void write(LinuxNetns netns, String dev, Path file) throws IOException {
            Files.write(file, frames.toByteArray());
            int n = count;
            frames.reset();
            count = 0;
            CommandResult r = netns.exec(Duration.ofSeconds(120), "python3", "-c", WRITE_FRAMES, dev, file.toString());
            assertThat(r.ok()).as(r.describe()).isTrue();
            assertThat(r.stdout().strip()).isEqualTo(Integer.toString(n));
        }

        /** The stream offset jnet acknowledges once it has stopped moving for 300 ms. */
        int ackedWhenQuiet() throws InterruptedException {
            int last = rcvNxt();
            long quietSince = System.nanoTime();
            long deadline = quietSince + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() - quietSince < 300_000_000L && System.nanoTime() < deadline) {
                Thread.sleep(20);
                int now = rcvNxt();
                if (now != last) {
                    last = now;
                    quietSince = System.nanoTime();
                }
            }
            return last - base;
        }

        private int rcvNxt() {
            c.lock.lock();
            try {
                return c.rcvNxt;
            } finally {
                c.lock.release();
            }
        }
    }
}
