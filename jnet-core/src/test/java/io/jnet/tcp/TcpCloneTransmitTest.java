package io.jnet.tcp;

import static io.jnet.testing.PoolChecks.awaitAllReturned;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketPool;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.testing.TcpTransfers.Connection;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments go down the stack as clones of their write-queue segments (Linux tcp_transmit_skb's skb_clone):
 * the payload is copied once, from the user's buffer, and the shared data is freed exactly once, after the ACK
 * and the device or receiver are done with it, also when a clone waits in an impairment delay queue, is
 * duplicated, corrupted or captured by a pcap sniffer. Every buffer a namespace's pool made is back in it
 * once the connections are gone: none leaked, none freed twice (a double free would show as more free
 * buffers than created, or as a buffer handed out twice and a corrupted stream).
 */
class TcpCloneTransmitTest {
    private static final int SIZE = 4 << 20;

    @TempDir
    Path dir;

    @Test
    void loopbackStreamCopiesEachPayloadByteOnceAndReturnsEveryBuffer() throws Exception {
        try (NetNamespace ns = NetNamespace.create("clone-lo")) {
            PacketPool pool = new PacketPool();
            ns.setAllocator(pool);
            long user0 = ns.mib().get(MibCounter.TcpExtJnetSndUserCopiedBytes);
            transfer(ns, ns, "127.0.0.1", SIZE);
            assertThat(ns.mib().get(MibCounter.TcpExtJnetSndUserCopiedBytes) - user0).isEqualTo(2L * SIZE);
            assertThat(ns.mib().get(MibCounter.TcpExtJnetSndCopiedBytes)).as("copies within the stack").isZero();
            assertThat(ns.mib().get(MibCounter.TcpExtJnetSndClonedSegs)).isPositive();
            awaitAllReturned(pool);
        }
    }

    @Test
    void vethWithDelayDuplicationCorruptionLossAndSniffersKeepsTheBytesAndFreesEachBufferOnce() throws Exception {
        try (NetNamespace a = NetNamespace.create("clone-a"); NetNamespace b = NetNamespace.create("clone-b")) {
            PacketPool poolA = new PacketPool();
            PacketPool poolB = new PacketPool();
            a.setAllocator(poolA);
            b.setAllocator(poolB);
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            a.interpose("veth0", d -> sniffer(d, "a.pcap"));
            b.interpose("veth0", d -> sniffer(d, "b.pcap"));
            ImpairedDevice.interpose(a, "veth0",
                    ImpairmentConfig.parse("delay=2ms,dup=2%,corrupt=1%,loss=1%,reorder=1%,reorder-gap=3,seed=11"));
            ImpairedDevice.interpose(b, "veth0", ImpairmentConfig.parse("delay=1ms,dup=1%,seed=12"));
            transfer(a, b, "10.0.0.2", 1 << 20);
            assertThat(a.mib().get(MibCounter.TcpExtJnetSndClonedSegs)).isPositive();
            assertThat(a.mib().get(MibCounter.TcpRetransSegs)).as("losses were repaired").isPositive();
            awaitAllReturned(poolA);
            awaitAllReturned(poolB);
        }
    }

    @Test
    void vethStreamCopiesEachPayloadByteOnceSplitsAndCapturesIncluded() throws Exception {
        try (NetNamespace a = NetNamespace.create("copy-a"); NetNamespace b = NetNamespace.create("copy-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            a.interpose("veth0", d -> sniffer(d, "copy-a.pcap")); // a capture copies for itself, not the stack
            b.interpose("veth0", d -> sniffer(d, "copy-b.pcap"));
            transfer(a, b, "10.0.0.2", 8 << 20);
            long user = a.mib().get(MibCounter.TcpExtJnetSndUserCopiedBytes);
            long stack = a.mib().get(MibCounter.TcpExtJnetSndCopiedBytes);
            System.out.printf("veth, 8 MiB each way: %d bytes copied from the user, %d within the stack, %d segments as clones, %d retransmitted%n",
                    user, stack, a.mib().get(MibCounter.TcpExtJnetSndClonedSegs), a.mib().get(MibCounter.TcpRetransSegs));
            assertThat(user).isEqualTo(8L << 20);
            // a retransmission whose first transmission is still queued is copied; nothing else is
            assertThat(stack).isLessThanOrEqualTo(a.mib().get(MibCounter.TcpRetransSegs) * 65536);
        }
    }

    private PcapSniffer sniffer(io.jnet.link.NetDevice d, String file) {
        try {
            return new PcapSniffer(d, PcapWriter.create(dir.resolve(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code size} bytes each way at once between a client in {@code ca} and a server in {@code sa}, byte-exact. */
    private static void transfer(NetNamespace ca, NetNamespace sa, String server, int size) throws Exception {
        byte[] up = TcpTransfers.random(size, 1);
        byte[] down = TcpTransfers.random(size, 2);
        try (Connection conn = TcpTransfers.connect(ca, sa, server)) {
            TcpTransfers.exchange(conn, up, down, 65536, 120, () -> ""); // TCP_STREAM -m 65536
        }
    }
}
