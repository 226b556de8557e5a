package io.jnet.drill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SockAddrsTest {

    @Test
    void sockaddrInHasTheFamilyInHostOrderAndPortAndAddressInNetworkOrder() throws Exception {
        byte[] b = SockAddrs.encode(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 8080));
        assertThat(b).containsExactly(2, 0, 0x1F, (byte) 0x90, (byte) 192, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void decodesWhatItEncodes() throws Exception {
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("192.168.0.1"), 65535);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 443);
        assertThat(SockAddrs.decode(SockAddrs.encode(v4), 16)).isEqualTo(v4);
        byte[] b6 = SockAddrs.encode(v6);
        assertThat(b6).hasSize(28);
        assertThat(b6[0]).isEqualTo((byte) 10);
        assertThat(SockAddrs.decode(b6, 28)).isEqualTo(v6);
    }

    @Test
    void nativeCopiesRoundTrip() throws Exception {
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = SockAddrs.toNative(a, arena);
            assertThat(s.byteSize()).isEqualTo(16);
            assertThat(SockAddrs.fromNative(s, 16)).isEqualTo(a);
        }
    }

    @Test
    void noAddressForShortUnspecifiedOrForeignFamilies() {
        assertThat(SockAddrs.decode(new byte[16], 0)).isNull();
        assertThat(SockAddrs.decode(new byte[16], 16)).isNull(); // AF_UNSPEC
        byte[] unix = new byte[16];
        unix[0] = 1;
        assertThat(SockAddrs.decode(unix, 16)).isNull();
        byte[] shortV4 = {2, 0, 0, 80, 10};
        assertThat(SockAddrs.decode(shortV4, 5)).isNull();
    }

    @Test
    void refusesUnresolvedAddresses() {
        assertThatThrownBy(() -> SockAddrs.encode(InetSocketAddress.createUnresolved("example.invalid", 80)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
