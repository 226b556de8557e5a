package io.jnet.link.tap;

import static io.jnet.link.tap.Frames.ipv4;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;
import io.jnet.link.pcap.PcapReader;
import io.jnet.link.pcap.PcapRecord;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TapDevice against the Linux kernel as the peer: the TAP interface is moved into a fresh network
 * namespace where the kernel has 192.0.2.1/24 and pings 192.0.2.2, which the test answers by hand
 * (ARP reply, ICMP echo reply) through the device.
 */
class TapDeviceKernelTest {

    static final int KERNEL_IP = ipv4(192, 0, 2, 1);
    static final int OUR_IP = ipv4(192, 0, 2, 2);

    @BeforeEach
    void needsRoot() {
        LinuxNetns.assumeAvailable();
    }

    /** Moves {@code tap} into {@code ns} and gives the kernel side 192.0.2.1/24, IPv6 off, link up. */
    static void plugIntoKernel(TapDevice tap, LinuxNetns ns) throws Exception {
        String dev = tap.ifname();
        ns.moveLink(dev);
        ns.sysctl("net.ipv6.conf." + dev + ".disable_ipv6", "1"); // no router/neighbour solicitations
        ns.addAddress(dev, "192.0.2.1/24");
        ns.linkUp(dev);
    }

    static byte[] await(BlockingQueue<byte[]> frames, Predicate<byte[]> wanted, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> skipped = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            byte[] f = frames.poll(100, TimeUnit.MILLISECONDS);
            if (f == null) continue;
            if (wanted.test(f)) return f;
            skipped.add("ethertype 0x" + Integer.toHexString(Frames.ethertype(f)) + " len " + f.length);
        }
        throw new AssertionError("no " + what + " from the kernel within 5 s; other frames: " + skipped);
    }

    static PacketBuffer buffer(byte[] frame) {
        return PacketBuffer.copyOf(frame, 0, frame.length, PacketBuffer.DEFAULT_HEADROOM);
    }

    @Test
    void kernelPingsAndTheTestAnswersThroughTheTap() throws Exception {
        Tools.assumeHas("ping");
        try (TapDevice tap = TapDevice.open("jnett%d"); LinuxNetns ns = LinuxNetns.create()) {
            answerOnePing(tap, tap, ns);
            assertThat(tap.stats().txPackets.sum()).isEqualTo(2);
            assertThat(tap.stats().txErrors.sum()).isZero();
            assertThat(tap.stats().rxPackets.sum()).isGreaterThanOrEqualTo(2);
            assertThat(tap.stats().rxErrors.sum()).isZero();
        }
    }

    @Test
    void snifferOnTheTapCapturesTheExchangeAndTsharkAgrees(@TempDir Path tmp) throws Exception {
        Tools.assumeHas("ping");
        Path file = tmp.resolve("tap.pcap");
        try (TapDevice tap = TapDevice.open("jnett%d"); LinuxNetns ns = LinuxNetns.create()) {
            try (PcapSniffer sniffer = new PcapSniffer(tap, PcapWriter.create(file))) {
                answerOnePing(sniffer, tap, ns);
            }
        }
        List<byte[]> frames = PcapReader.readAll(file).stream().map(PcapRecord::data).toList();
        int request = indexOf(frames, f -> Frames.isArpRequestFor(f, OUR_IP));
        int reply = indexOf(frames, f -> Frames.ethertype(f) == Frames.ETHERTYPE_ARP && Frames.u16(f, 20) == 2);
        int echo = indexOf(frames, f -> Frames.isEchoRequestTo(f, OUR_IP));
        int echoReply = indexOf(frames, f -> Frames.ethertype(f) == Frames.ETHERTYPE_IPV4 && Frames.u8(f, 23) == 1
                && Frames.u8(f, 34) == 0);
        assertThat(List.of(request, reply, echo, echoReply)).as("capture order").isSorted().doesNotContain(-1);

        if (Tools.has("tshark")) {
            // tshark checks the hand-made checksums: exactly one good echo reply from 192.0.2.2
            CommandResult r = Tools.run(Duration.ofSeconds(60), "tshark", "-n", "-r", file.toString(),
                    "-o", "ip.check_checksum:TRUE", "-Y",
                    "ip.src == 192.0.2.2 && icmp.type == 0 && ip.checksum.status == 1 && icmp.checksum.status == 1")
                    .checkSuccess();
            assertThat(r.stdout().lines().count()).as(r.stdout()).isEqualTo(1);
        }
    }

    /**
     * Plugs {@code tap} into {@code ns}, runs one kernel ping to 192.0.2.2 and answers its ARP request and
     * echo request through {@code dev} (the tap itself or a decorator around it).
     */
    static void answerOnePing(NetDevice dev, TapDevice tap, LinuxNetns ns) throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        dev.setReceiver((d, frame) -> {
            if (d == dev) frames.add(frame.toBytes());
            frame.release();
        });
        plugIntoKernel(tap, ns);

        BackgroundProcess ping = ns.start("ping", "-n", "-c", "1", "-W", "2", "192.0.2.2");

        byte[] arpRequest = await(frames, f -> Frames.isArpRequestFor(f, OUR_IP), "ARP request for 192.0.2.2");
        assertThat(Frames.u32(arpRequest, 28)).as("ARP sender IP").isEqualTo(KERNEL_IP);
        long kernelMac = Frames.mac(arpRequest, 22);
        assertThat(Frames.mac(arpRequest, 6)).as("Ethernet source = ARP sender").isEqualTo(kernelMac);
        dev.transmit(buffer(Frames.arpReply(arpRequest, dev.macAddress(), OUR_IP)));

        byte[] echo = await(frames, f -> Frames.isEchoRequestTo(f, OUR_IP), "ICMP echo request to 192.0.2.2");
        assertThat(Frames.mac(echo, 0)).as("echo request sent to the MAC we announced").isEqualTo(dev.macAddress());
        assertThat(Frames.u32(echo, 26)).isEqualTo(KERNEL_IP);
        assertThat(Frames.checksum(echo, Frames.ETH_HLEN, 20)).as("kernel's IPv4 header checksum verifies").isZero();
        dev.transmit(buffer(Frames.echoReply(echo)));

        int status = ping.waitFor(Duration.ofSeconds(10));
        assertThat(status).as(ping.describe()).isZero();
        assertThat(ping.stdout()).contains("1 received");

        CommandResult neigh = ns.execChecked("ip", "neigh", "show", "192.0.2.2", "dev", tap.ifname());
        assertThat(neigh.stdout()).contains(TapDevice.formatMac(tap.macAddress()));
    }

    static int indexOf(List<byte[]> frames, Predicate<byte[]> p) {
        for (int i = 0; i < frames.size(); i++) if (p.test(frames.get(i))) return i;
        return -1;
    }

    @Test
    void framesWithoutReceiverAreDroppedAndReceiverExceptionsAreCountedWithoutKillingTheReader() throws Exception {
        Tools.assumeHas("ping");
        try (TapDevice tap = TapDevice.open("jnett%d"); LinuxNetns ns = LinuxNetns.create()) {
            plugIntoKernel(tap, ns);
            // unanswered pings make the kernel send ARP requests for 192.0.2.2 once a second
            ns.start("ping", "-n", "-i", "0.2", "-W", "1", "192.0.2.2");
            waitUntil(() -> tap.stats().rxDropped.sum() > 0, "a frame dropped for lack of a receiver");
            assertThat(tap.stats().rxPackets.sum()).isZero();

            tap.setReceiver((dev, frame) -> {
                throw new IllegalStateException("receiver failure");
            });
            waitUntil(() -> tap.stats().rxErrors.sum() > 0, "a receiver exception counted");

            BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
            tap.setReceiver((dev, frame) -> {
                frames.add(frame.toBytes());
                frame.release();
            });
            await(frames, f -> Frames.isArpRequestFor(f, OUR_IP), "ARP request after the receiver failed");
            assertThat(TapDeviceTest.readerThread(tap.ifname())).get().matches(Thread::isAlive);
        }
    }

    @Test
    void concurrentTransmitsAllReachTheKernel() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d"); LinuxNetns ns = LinuxNetns.create()) {
            plugIntoKernel(tap, ns);
            String dev = tap.ifname();
            long before = kernelRxPackets(ns, dev);
            int threads = 4;
            int perThread = 250;
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                senders.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        // broadcast frames of an unused ethertype (IEEE 802 local experimental 0x88b5)
                        byte[] f = new byte[60 + id];
                        Frames.putMac(f, 0, 0xFFFF_FFFF_FFFFL);
                        Frames.putMac(f, 6, tap.macAddress());
                        Frames.put16(f, 12, 0x88b5);
                        Frames.put32(f, 14, i);
                        tap.transmit(buffer(f));
                    }
                }));
            }
            for (Thread s : senders) s.join();
            int total = threads * perThread;
            assertThat(tap.stats().txPackets.sum()).isEqualTo(total);
            assertThat(tap.stats().txBytes.sum()).isEqualTo(perThread * (60L + 61 + 62 + 63));
            assertThat(tap.stats().txDropped.sum() + tap.stats().txErrors.sum()).isZero();
            assertThat(kernelRxPackets(ns, dev) - before).isEqualTo(total);
        }
    }

    @Test
    void deletingTheNamespaceStopsTheReaderAndTransmitsCountErrors() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            Thread reader = TapDeviceTest.readerThread(tap.ifname()).orElseThrow();
            try (LinuxNetns ns = LinuxNetns.create()) {
                plugIntoKernel(tap, ns);
            }
            reader.join(5000);
            assertThat(reader.isAlive()).as("reader stops when the interface is deleted").isFalse();
            tap.transmit(buffer(new byte[60]));
            assertThat(tap.stats().txErrors.sum()).isEqualTo(1);
            assertThat(tap.stats().txPackets.sum()).isZero();
        }
    }

    private static final Pattern RX_PACKETS = Pattern.compile("RX:.*\\n\\s*\\d+\\s+(\\d+)");

    /** The kernel's rx_packets of {@code dev} (what it received from jnet). */
    static long kernelRxPackets(LinuxNetns ns, String dev) throws Exception {
        CommandResult r = ns.execChecked("ip", "-s", "link", "show", "dev", dev);
        Matcher m = RX_PACKETS.matcher(r.stdout());
        assertThat(m.find()).as(r.stdout()).isTrue();
        return Long.parseLong(m.group(1));
    }

    static void waitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
