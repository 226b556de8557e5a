package io.jnet.drill.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.wire.Checksum;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The native structs' layouts: epoll_event (packed), iovec/msghdr, virtio_net_hdr checksum completion. */
class NativeStructsTest {

    @Test
    void epollEventIsPackedInTwelveBytes() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ev = EpollEvents.allocate(a, 2);
            EpollEvents.set(ev, 1, 0x80000001, 0x1122334455667788L);
            assertThat(ev.get(JAVA_BYTE, 12)).isEqualTo((byte) 0x01);
            assertThat(ev.get(JAVA_BYTE, 15)).isEqualTo((byte) 0x80);
            assertThat(ev.get(JAVA_BYTE, 16)).isEqualTo((byte) 0x88); // data right after events, unaligned
            assertThat(EpollEvents.events(ev, 1)).isEqualTo(0x80000001);
            assertThat(EpollEvents.data(ev, 1)).isEqualTo(0x1122334455667788L);
        }
    }

    @Test
    void iovecsCutOneBufferIntoThePieces() {
        try (Arena a = Arena.ofConfined()) {
            Iovecs v = Iovecs.forWriting(a, new byte[][] {{1, 2}, {}, {3}});
            assertThat(v.count).isEqualTo(3);
            assertThat(v.iov.get(JAVA_LONG, 8)).isEqualTo(2);
            assertThat(v.iov.get(JAVA_LONG, 24)).isZero();
            assertThat(v.iov.get(ADDRESS, 32).address()).isEqualTo(v.buffer.address() + 2);
            assertThat(v.firstBytes(3)).containsExactly(1, 2, 3);
            MemorySegment m = v.msghdr(a, MemorySegment.NULL, 0);
            assertThat(m.get(ADDRESS, 16).address()).isEqualTo(v.iov.address());
            assertThat(m.get(JAVA_LONG, 24)).isEqualTo(3);
        }
    }

    @Test
    void completesAPartialTcpChecksumAsTheDeviceWould() {
        int src = Ipv4.parseAddress("192.168.0.1");
        int dst = Ipv4.parseAddress("192.0.2.1");
        byte[] p = new byte[20 + 20 + 5];
        Ipv4.write(p, 0, 0, p.length, 1, Ipv4.FLAG_DF, 64, Ipv4.PROTO_TCP, src, dst);
        Tcp.writeHeader(p, 20, 40000, 8080, 1, 2, 20, Tcp.ACK | Tcp.PSH, 502);
        System.arraycopy(new byte[] {'h', 'e', 'l', 'l', 'o'}, 0, p, 40, 5);
        Tcp.fillChecksum(p, 20, 25, src, dst);
        int complete = Tcp.checksum(p, 20);
        // what the kernel leaves with CHECKSUM_PARTIAL: the folded pseudo-header sum, not complemented
        Tcp.setChecksum(p, 20, Checksum.fold(Checksum.pseudoHeaderSum(src, dst, Ipv4.PROTO_TCP, 25)) ^ 0xFFFF);
        byte[] hdr = {VnetHeader.F_NEEDS_CSUM, 0, 0, 0, 0, 0, 20, 0, 16, 0};

        assertThat(VnetHeader.completeChecksum(hdr, p, p.length, false)).isTrue();
        assertThat(Tcp.checksum(p, 20)).isEqualTo(complete);
        assertThat(Tcp.validate(p, 20, 25, true, src, dst)).isEqualTo(Tcp.OK);
    }

    @Test
    void leavesPacketsWithoutThePartialFlagOrWithBadOffsetsAlone() {
        byte[] p = {1, 2, 3, 4};
        assertThat(VnetHeader.completeChecksum(new byte[10], p, 4, false)).isTrue();
        assertThat(p).containsExactly(1, 2, 3, 4);
        byte[] bad = {VnetHeader.F_NEEDS_CSUM, 0, 0, 0, 0, 0, 2, 0, 16, 0};
        assertThat(VnetHeader.completeChecksum(bad, p, 4, false)).isFalse();
    }
}
