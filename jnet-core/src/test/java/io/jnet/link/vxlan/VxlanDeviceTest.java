package io.jnet.link.vxlan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Vxlan;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * VxlanDevice against plain UDP sockets on 127.0.0.1 playing the remote VTEPs: the bytes on the wire
 * (RFC 7348 section 5), remote selection, head-end replication, validation of received datagrams with
 * their drop counters, learning and ageing, closing.
 */
class VxlanDeviceTest {

    static final InetAddress LOCALHOST = InetAddress.getLoopbackAddress();
    static final long PEER_MAC = 0x02_00_5e_00_00_01L;
    static final long OTHER_MAC = 0x02_00_5e_00_00_02L;

    private DatagramChannel peer;
    private DatagramChannel peer2;

    @BeforeEach
    void openPeers() throws IOException {
        peer = udp();
        peer2 = udp();
    }

    @AfterEach
    void closePeers() throws IOException {
        peer.close();
        peer2.close();
    }

    static DatagramChannel udp() throws IOException {
        DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
        c.bind(new InetSocketAddress(LOCALHOST, 0));
        return c;
    }

    static InetSocketAddress addressOf(DatagramChannel c) throws IOException {
        return (InetSocketAddress) c.getLocalAddress();
    }

    static VxlanDevice.Builder device(String name) {
        return VxlanDevice.builder(name).vni(42).localAddress(new InetSocketAddress(LOCALHOST, 0));
    }

    /** An Ethernet frame of {@code length} bytes with an experimental EtherType (0x88b5) and a counting payload. */
    static byte[] frame(long dst, long src, int length) {
        byte[] f = new byte[length];
        Ethernet.write(f, 0, dst, src, 0x88b5);
        for (int i = Ethernet.HEADER_LENGTH; i < length; i++) f[i] = (byte) i;
        return f;
    }

    static PacketBuffer buffer(byte[] frame) {
        return PacketBuffer.copyOf(frame, 0, frame.length, PacketBuffer.DEFAULT_HEADROOM);
    }

    static byte[] vxlan(int flags, int vni, byte[] inner) {
        byte[] d = new byte[Vxlan.HEADER_LENGTH + inner.length];
        Vxlan.write(d, 0, vni);
        d[0] = (byte) flags;
        System.arraycopy(inner, 0, d, Vxlan.HEADER_LENGTH, inner.length);
        return d;
    }

    /** Receives one datagram on {@code c} within 5 s. */
    static byte[] receive(DatagramChannel c) throws Exception {
        c.configureBlocking(false);
        ByteBuffer bb = ByteBuffer.allocate(65536);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (c.receive(bb) == null) {
            if (System.nanoTime() > deadline) throw new AssertionError("no datagram within 5 s on " + c.getLocalAddress());
            Thread.sleep(5);
        }
        return Arrays.copyOf(bb.array(), bb.position());
    }

    static void assertNothingReceived(DatagramChannel c) throws Exception {
        c.configureBlocking(false);
        Thread.sleep(100);
        assertThat(c.receive(ByteBuffer.allocate(65536))).as("datagram on " + c.getLocalAddress()).isNull();
    }

    static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    @Test
    void transmitPrependsTheVxlanHeaderAndSendsToTheDefaultRemote() throws Exception {
        try (VxlanDevice dev = device("vx0").remote(addressOf(peer)).open()) {
            byte[] f = frame(Ethernet.BROADCAST, dev.macAddress(), 100);
            dev.transmit(buffer(f));
            byte[] d = receive(peer);
            assertThat(d).hasSize(108);
            assertThat(d[0]).as("flags: I").isEqualTo((byte) 0x08);
            assertThat(Arrays.copyOfRange(d, 1, 4)).as("reserved").containsOnly(0);
            assertThat(Arrays.copyOfRange(d, 4, 8)).as("VNI 42, reserved").containsExactly(0, 0, 42, 0);
            assertThat(Arrays.copyOfRange(d, 8, d.length)).isEqualTo(f);
            assertThat(dev.stats().txPackets.sum()).isEqualTo(1);
            assertThat(dev.stats().txBytes.sum()).as("inner bytes").isEqualTo(100);
        }
    }

    @Test
    void frameWithoutHeadroomIsCopied() throws Exception {
        try (VxlanDevice dev = device("vx0").remote(addressOf(peer)).open()) {
            byte[] f = frame(Ethernet.BROADCAST, dev.macAddress(), 60);
            dev.transmit(PacketBuffer.copyOf(f, 0, f.length, 0));
            byte[] d = receive(peer);
            assertThat(Vxlan.vni(d, 0)).isEqualTo(42);
            assertThat(Arrays.copyOfRange(d, 8, d.length)).isEqualTo(f);
        }
    }

    @Test
    void unicastFollowsTheForwardingDatabaseAndTheRestIsFloodedToEveryRemoteOnce() throws Exception {
        try (VxlanDevice dev = device("vx0").remote(addressOf(peer)).floodRemote(addressOf(peer2))
                .floodRemote(addressOf(peer)).staticEntry(OTHER_MAC, addressOf(peer2)).open()) {
            assertThat(dev.floodRemotes()).containsExactly(addressOf(peer), addressOf(peer2));

            dev.transmit(buffer(frame(OTHER_MAC, dev.macAddress(), 60)));
            assertThat(receive(peer2)).hasSize(68);
            assertNothingReceived(peer);

            // unknown unicast, broadcast and multicast: one copy per remote
            for (long dst : new long[] {PEER_MAC, Ethernet.BROADCAST, 0x01_00_5e_00_00_01L}) {
                dev.transmit(buffer(frame(dst, dev.macAddress(), 60)));
                assertThat(Ethernet.destination(receive(peer), 8)).isEqualTo(dst);
                assertThat(Ethernet.destination(receive(peer2), 8)).isEqualTo(dst);
            }
            assertThat(dev.stats().txPackets.sum()).isEqualTo(7);

            assertThat(dev.removeFloodRemote(addressOf(peer2))).isTrue();
            dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 60)));
            receive(peer);
            assertNothingReceived(peer2);
        }
    }

    @Test
    void framesWithNowhereToGoOrTooBigAreDroppedAndCounted() throws Exception {
        try (VxlanDevice dev = device("vx0").mtu(1400).open()) {
            dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 60)));
            assertThat(dev.vxlanStats().txNoRemote.sum()).isEqualTo(1);
            dev.addFloodRemote(addressOf(peer));
            dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 1400 + 18 + 1)));
            assertThat(dev.vxlanStats().txTooBig.sum()).isEqualTo(1);
            dev.transmit(buffer(new byte[13]));
            assertThat(dev.stats().txDropped.sum()).isEqualTo(3);
            dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 1400 + 18)));
            assertThat(receive(peer)).hasSize(1400 + 18 + 8);
            assertThat(dev.stats().txPackets.sum()).isEqualTo(1);
            assertThat(dev.stats().txErrors.sum()).isZero();
        }
    }

    @Test
    void receivedFramesAreValidatedAndBadOnesCountedAsDrops() throws Exception {
        try (VxlanDevice dev = device("vx0").learning(false).open()) {
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((d, frame) -> got.add(frame));
            InetSocketAddress to = dev.localAddress();
            byte[] good = frame(dev.macAddress(), PEER_MAC, 80);

            peer.send(ByteBuffer.wrap(new byte[] {8, 0, 0}), to);                         // shorter than the header
            peer.send(ByteBuffer.wrap(vxlan(0x00, 42, good)), to);                         // I flag clear
            peer.send(ByteBuffer.wrap(vxlan(0x08, 43, good)), to);                         // other VNI
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, new byte[10])), to);                 // inner frame truncated
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(dev.macAddress(), dev.macAddress(), 60))), to); // our own MAC
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(dev.macAddress(), Ethernet.BROADCAST, 60))), to); // multicast source
            peer.send(ByteBuffer.wrap(vxlan(0x08 | 0x80, 42, good)), to);                  // reserved flag bits are ignored

            PacketBuffer f = got.poll(5, TimeUnit.SECONDS);
            assertThat(f).as("the valid frame").isNotNull();
            assertThat(f.toBytes()).isEqualTo(good);
            assertThat(f.headroom()).isEqualTo(PacketBuffer.DEFAULT_HEADROOM);
            assertThat(got).isEmpty();

            VxlanStats v = dev.vxlanStats();
            assertThat(v.rxBadHeader.sum()).isEqualTo(2);
            assertThat(v.rxVniMismatch.sum()).isEqualTo(1);
            assertThat(v.rxTruncatedFrame.sum()).isEqualTo(1);
            assertThat(v.rxBadSourceMac.sum()).isEqualTo(2);
            assertThat(dev.stats().rxErrors.sum()).isEqualTo(3);
            assertThat(dev.stats().rxDropped.sum()).isEqualTo(3);
            assertThat(dev.stats().rxPackets.sum()).isEqualTo(1);
            assertThat(dev.stats().rxBytes.sum()).isEqualTo(80);
            assertThat(dev.fdb().entries()).as("learning off").isEmpty();
        }
    }

    @Test
    void learnsTheOuterSourceAddressWithTheDestinationPortByDefault() throws Exception {
        try (VxlanDevice dev = device("vx0").dstPort(4790).open()) {
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((d, frame) -> got.add(frame));
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(Ethernet.BROADCAST, PEER_MAC, 60))), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(dev.fdb().lookup(PEER_MAC)).isEqualTo(new InetSocketAddress(LOCALHOST, 4790));
            assertThat(dev.vxlanStats().fdbLearned.sum()).isEqualTo(1);
        }
    }

    @Test
    void learnedEntriesMoveWithTheMacAndAgeOut() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (VxlanDevice dev = device("vx0").learnSourcePort(true).ageing(300).clock(clock).open()) {
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((d, frame) -> got.add(frame));
            byte[] fromPeer = vxlan(0x08, 42, frame(dev.macAddress(), PEER_MAC, 60));

            peer.send(ByteBuffer.wrap(fromPeer), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(dev.fdb().lookup(PEER_MAC)).isEqualTo(addressOf(peer));

            // unicast to the learned MAC goes to its VTEP only
            dev.addFloodRemote(addressOf(peer2));
            dev.transmit(buffer(frame(PEER_MAC, dev.macAddress(), 60)));
            assertThat(receive(peer)).hasSize(68);
            assertNothingReceived(peer2);

            // the same MAC now behind peer2: the entry moves
            clock.advanceMillis(1000);
            peer2.send(ByteBuffer.wrap(fromPeer), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(dev.fdb().lookup(PEER_MAC)).isEqualTo(addressOf(peer2));
            assertThat(dev.vxlanStats().fdbLearned.sum()).isEqualTo(1);
            assertThat(dev.vxlanStats().fdbMoved.sum()).isEqualTo(1);

            // unrefreshed for the ageing time: the entry is gone and frames to the MAC are flooded again
            clock.advanceMillis(299_999);
            assertThat(dev.fdb().lookup(PEER_MAC)).isEqualTo(addressOf(peer2));
            clock.advanceMillis(1);
            assertThat(dev.fdb().entries()).isEmpty();
            assertThat(dev.fdb().lookup(PEER_MAC)).isNull();
            assertThat(dev.fdb().size()).isZero();
        }
    }

    @Test
    void staticEntriesAreNeitherLearnedOverNorAged() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (VxlanDevice dev = device("vx0").learnSourcePort(true).clock(clock).staticEntry(PEER_MAC, addressOf(peer2)).open()) {
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((d, frame) -> got.add(frame));
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(dev.macAddress(), PEER_MAC, 60))), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            clock.advanceMillis(3_600_000);
            assertThat(dev.fdb().lookup(PEER_MAC)).isEqualTo(addressOf(peer2));
            assertThat(dev.fdb().entries()).singleElement().matches(VxlanFdb.Entry::isStatic);
            assertThat(dev.vxlanStats().fdbLearned.sum()).isZero();
        }
    }

    @Test
    void maxAddressesBoundsLearning() throws Exception {
        try (VxlanDevice dev = device("vx0").maxAddresses(1).open()) {
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((d, frame) -> got.add(frame));
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(dev.macAddress(), PEER_MAC, 60))), dev.localAddress());
            peer.send(ByteBuffer.wrap(vxlan(0x08, 42, frame(dev.macAddress(), OTHER_MAC, 60))), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(dev.fdb().entries()).extracting(VxlanFdb.Entry::mac).containsExactly(PEER_MAC);
        }
    }

    @Test
    void receiverExceptionsAreCountedAndTheReaderGoesOn() throws Exception {
        try (VxlanDevice dev = device("vx0").open()) {
            byte[] d = vxlan(0x08, 42, frame(dev.macAddress(), PEER_MAC, 60));
            dev.setReceiver((x, frame) -> {
                throw new IllegalStateException("receiver failure");
            });
            peer.send(ByteBuffer.wrap(d), dev.localAddress());
            waitUntil(() -> dev.stats().rxErrors.sum() == 1, "a receiver exception counted");
            BlockingQueue<PacketBuffer> got = new LinkedBlockingQueue<>();
            dev.setReceiver((x, frame) -> got.add(frame));
            peer.send(ByteBuffer.wrap(d), dev.localAddress());
            assertThat(got.poll(5, TimeUnit.SECONDS)).isNotNull();
        }
    }

    @Test
    void anInterruptedTransmittingThreadDoesNotCloseTheSocket() throws Exception {
        try (VxlanDevice dev = device("vx0").remote(addressOf(peer)).open()) {
            Thread.currentThread().interrupt();
            try {
                dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 60)));
            } finally {
                assertThat(Thread.interrupted()).as("interrupt status kept").isTrue();
            }
            dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 60)));
            receive(peer);
            receive(peer);
            assertThat(dev.stats().txPackets.sum()).isEqualTo(2);
        }
    }

    @Test
    void closeEndsTheReaderPromptlyAndLaterTransmitsAreDropped() throws Exception {
        VxlanDevice dev = device("vxclose").remote(addressOf(peer)).open();
        Thread reader = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("jnet-vxlan-vxclose")).findFirst().orElseThrow();
        assertThat(reader.isDaemon()).isTrue();
        InetSocketAddress local = dev.localAddress();
        dev.close();
        assertThat(reader.isAlive()).isFalse();
        assertThat(dev.isOpen()).isFalse();
        dev.transmit(buffer(frame(Ethernet.BROADCAST, dev.macAddress(), 60)));
        assertThat(dev.stats().txDropped.sum()).isEqualTo(1);
        dev.close();
        // the port is free again
        try (DatagramChannel again = DatagramChannel.open(StandardProtocolFamily.INET)) {
            again.bind(local);
        }
    }

    @Test
    void builderRejectsBadConfiguration() throws Exception {
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").vni(1 << 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").open()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("VNI");
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").macAddress(0x01_00_5e_00_00_01L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").remote(InetSocketAddress.createUnresolved("example.invalid", 4789)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").remote(new InetSocketAddress("::1", 4789)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VxlanDevice.builder("vx0").ageing(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VxlanDevice.builder("this-name-is-too-long")).isInstanceOf(IllegalArgumentException.class);
        // the port is taken
        assertThatThrownBy(() -> device("vx0").localAddress(addressOf(peer)).open()).isInstanceOf(IOException.class);
    }

    @Test
    void defaultsFollowLinux() throws Exception {
        try (VxlanDevice dev = device("vx0").remote(LOCALHOST).open()) {
            assertThat(dev.mtu()).isEqualTo(1450);
            assertThat(dev.learning()).isTrue();
            assertThat(dev.fdb().ageingSeconds()).isEqualTo(300);
            assertThat(dev.defaultRemote()).isEqualTo(new InetSocketAddress(LOCALHOST, 4789));
            assertThat(dev.macAddress() >>> 40 & 0x03).as("locally administered unicast").isEqualTo(0x02);
            assertThat(dev.isLoopback()).isFalse();
        }
    }
}
