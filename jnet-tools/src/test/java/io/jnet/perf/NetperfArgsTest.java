package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NetperfArgsTest {

    @Test
    void sizesTakeBinaryUpperAndDecimalLowerSuffixes() {
        assertThat(NetperfArgs.size("1500")).isEqualTo(1500);
        assertThat(NetperfArgs.size("64K")).isEqualTo(65536);
        assertThat(NetperfArgs.size("64k")).isEqualTo(64000);
        assertThat(NetperfArgs.size("2M")).isEqualTo(2 * 1024 * 1024);
        assertThat(NetperfArgs.size("2m")).isEqualTo(2_000_000);
        assertThat(NetperfArgs.size("1G")).isEqualTo(1L << 30);
        assertThat(NetperfArgs.size("1g")).isEqualTo(1_000_000_000L);
    }

    @Test
    void badSizesAreRejected() {
        assertThatThrownBy(() -> NetperfArgs.size("abc")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a size");
        assertThatThrownBy(() -> NetperfArgs.size("-5")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NetperfArgs.size("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NetperfArgs.bufferSize("-m", "0")).hasMessageContaining("-m");
        assertThatThrownBy(() -> NetperfArgs.bufferSize("-m", "2G")).hasMessageContaining("1G");
    }

    @Test
    void pairsFollowBreakArgs() {
        assertThat(NetperfArgs.pair("16K")).isEqualTo(new NetperfArgs.Pair("16K", "16K"));
        assertThat(NetperfArgs.pair("1,2")).isEqualTo(new NetperfArgs.Pair("1", "2"));
        assertThat(NetperfArgs.pair(",2")).isEqualTo(new NetperfArgs.Pair(null, "2"));
        assertThat(NetperfArgs.pair("1,")).isEqualTo(new NetperfArgs.Pair("1", null));
        assertThatThrownBy(() -> NetperfArgs.pair("1,2,3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NetperfArgs.pair(",")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requestResponseParsing() {
        assertThat(NetperfArgs.requestResponse("64,1024", 1, 1)).containsExactly(64, 1024);
        assertThat(NetperfArgs.requestResponse("32", 1, 1)).containsExactly(32, 32);
        assertThat(NetperfArgs.requestResponse(",4K", 1, 1)).containsExactly(1, 4096);
        assertThat(NetperfArgs.requestResponse("100,", 1, 7)).containsExactly(100, 7);
        assertThatThrownBy(() -> NetperfArgs.requestResponse("0,1", 1, 1)).hasMessageContaining("request size");
        assertThatThrownBy(() -> NetperfArgs.requestResponse("x", 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void socketBufferSpecs() {
        assertThat(NetperfArgs.socketBuffers("128K", true)).isEqualTo(new SocketSettings(131072, 131072, true));
        assertThat(NetperfArgs.socketBuffers("16K,64K", false)).isEqualTo(new SocketSettings(16384, 65536, false));
        assertThat(NetperfArgs.socketBuffers(",64K", false))
                .isEqualTo(new SocketSettings(SocketSettings.SYSTEM_DEFAULT, 65536, false));
    }
}
