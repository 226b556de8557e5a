package io.jnet.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.socket.SocketOption;
import io.jnet.socket.UdpSocket;
import io.jnet.socket.UdpSocket.Datagram;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Udp;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** UDP input validation and broadcast delivery, driven by hand-built frames sent into a veth end. */
class UdpInputTest {
    private static final int PEER = Ipv4.parseAddress("10.0.0.1");
    private static final int LOCAL = Ipv4.parseAddress("10.0.0.2");
    private static final int SUBNET_BROADCAST = Ipv4.parseAddress("10.0.0.255");

    private NetNamespace ns;
    private NetDevice wire;
    private NetDevice dev;

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("udp-in");
        VethPair p = VethPair.create("wire0", "veth1");
        wire = p.a(); // not attached: frames transmitted here arrive in ns
        dev = p.b();
        ns.attach(dev);
        ns.addAddress("veth1", "10.0.0.2/24");
    }

    @AfterEach
    void tearDown() {
        assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        ns.close();
    }

    /** Ethernet + IPv4 + UDP with a correct checksum and {@code trailing} zero bytes after the datagram. */
    private PacketBuffer frame(long dstMac, int dst, int dport, byte[] payload, int trailing) {
        int ulen = Udp.HEADER_LENGTH + payload.length;
        int total = Ipv4.MIN_HEADER_LENGTH + ulen + trailing;
        PacketBuffer f = PacketBuffer.allocate(0, Ethernet.HEADER_LENGTH + total);
        f.put(Ethernet.HEADER_LENGTH + total);
        byte[] b = f.array();
        Ethernet.write(b, 0, dstMac, 0x02_00_00_00_00_01L, Ethernet.TYPE_IPV4);
        Ipv4.write(b, Ethernet.HEADER_LENGTH, 0, total, 1, 0, 64, Ipv4.PROTO_UDP, PEER, dst);
        int uoff = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;
        System.arraycopy(payload, 0, b, uoff + Udp.HEADER_LENGTH, payload.length);
        Udp.write(b, uoff, 1234, dport, ulen, PEER, dst);
        return f;
    }

    private PacketBuffer frame(int dport, String text) {
        return frame(dev.macAddress(), LOCAL, dport, text.getBytes(StandardCharsets.UTF_8), 0);
    }

    private static int udpOffset() { return Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH; }

    private static String poll(UdpSocket s) throws Exception {
        s.setBlocking(false);
        byte[] b = new byte[100];
        Datagram d = s.receive(b, 0, b.length);
        return d == null ? null : new String(b, 0, d.length(), StandardCharsets.UTF_8);
    }

    private UdpSocket bound(String host, int port) throws Exception {
        UdpSocket s = UdpSocket.open(ns);
        s.setOption(SocketOption.SO_REUSEADDR, true);
        s.bind(new InetSocketAddress(host, port));
        return s;
    }

    @Test
    void validDatagramIsDelivered() throws Exception {
        try (UdpSocket s = bound("10.0.0.2", 53)) {
            wire.transmit(frame(53, "query"));
            assertThat(poll(s)).isEqualTo("query");
            assertThat(ns.mib().get(MibCounter.UdpInErrors)).isZero();
        }
    }

    @Test
    void badChecksumIsCountedAndDropped() throws Exception {
        try (UdpSocket s = bound("10.0.0.2", 53)) {
            PacketBuffer f = frame(53, "query");
            f.array()[udpOffset() + Udp.HEADER_LENGTH] ^= 0x40; // corrupt the payload
            wire.transmit(f);
            assertThat(poll(s)).isNull();
            assertThat(ns.mib().get(MibCounter.UdpInCsumErrors)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.UdpInErrors)).isEqualTo(1);
            assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isZero();
        }
    }

    @Test
    void zeroChecksumMeansNoneAndIsAccepted() throws Exception {
        try (UdpSocket s = bound("10.0.0.2", 53)) {
            PacketBuffer f = frame(53, "no checksum");
            Bytes.put16(f.array(), udpOffset() + 6, 0);
            wire.transmit(f);
            assertThat(poll(s)).isEqualTo("no checksum");
            assertThat(ns.mib().get(MibCounter.UdpInCsumErrors)).isZero();
        }
    }

    @Test
    void lengthFieldBeyondThePacketIsAnInputError() throws Exception {
        try (UdpSocket s = bound("10.0.0.2", 53)) {
            PacketBuffer f = frame(53, "abc");
            Bytes.put16(f.array(), udpOffset() + 4, 200);
            wire.transmit(f);
            PacketBuffer tiny = frame(53, "");
            Bytes.put16(tiny.array(), udpOffset() + 4, 7); // below the header length
            wire.transmit(tiny);
            assertThat(poll(s)).isNull();
            assertThat(ns.mib().get(MibCounter.UdpInErrors)).isEqualTo(2);
            assertThat(ns.mib().get(MibCounter.UdpInCsumErrors)).isZero();
        }
    }

    @Test
    void bytesPastTheUdpLengthAreTrimmed() throws Exception {
        try (UdpSocket s = bound("10.0.0.2", 53)) {
            wire.transmit(frame(dev.macAddress(), LOCAL, 53, "abc".getBytes(StandardCharsets.UTF_8), 10));
            assertThat(poll(s)).isEqualTo("abc");
        }
    }

    @Test
    void unicastWithoutSocketIsAnsweredWithPortUnreachable() {
        wire.transmit(frame(1, "nobody"));
        assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isEqualTo(1);
        assertThat(ns.mib().get(MibCounter.IcmpOutDestUnreachs)).isEqualTo(1);
    }

    @Test
    void broadcastReachesEveryMatchingSocketAndNeverCausesAnIcmpError() throws Exception {
        try (UdpSocket any1 = bound("0.0.0.0", 67);
             UdpSocket any2 = bound("0.0.0.0", 67);
             UdpSocket unicastOnly = bound("10.0.0.2", 67);
             UdpSocket bcast = bound("10.0.0.255", 67)) {
            wire.transmit(frame(Ethernet.BROADCAST, SUBNET_BROADCAST, 67, "subnet".getBytes(StandardCharsets.UTF_8), 0));
            wire.transmit(frame(Ethernet.BROADCAST, -1, 67, "limited".getBytes(StandardCharsets.UTF_8), 0));
            assertThat(poll(any1)).isEqualTo("subnet");
            assertThat(poll(any2)).isEqualTo("subnet");
            assertThat(poll(bcast)).isEqualTo("subnet");
            assertThat(poll(any1)).isEqualTo("limited");
            assertThat(poll(any2)).isEqualTo("limited");
            assertThat(poll(bcast)).isNull();
            assertThat(poll(unicastOnly)).isNull();
        }
        wire.transmit(frame(Ethernet.BROADCAST, SUBNET_BROADCAST, 68, "nobody".getBytes(StandardCharsets.UTF_8), 0));
        assertThat(ns.mib().get(MibCounter.UdpNoPorts)).isZero();
        assertThat(ns.mib().get(MibCounter.IcmpOutMsgs)).isZero();
    }
}
