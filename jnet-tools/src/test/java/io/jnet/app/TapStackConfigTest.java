package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The TAP stack's configuration and the address handling of jnet fetch; opens no device. */
class TapStackConfigTest {

    @Test
    void subnetAndPeerFollowTheAddress() throws UnknownHostException {
        TapStack.Config c = TapStack.Config.defaults();
        assertThat(c.subnetCidr()).isEqualTo("192.0.2.0/24");
        assertThat(c.peerAddress().getHostAddress()).isEqualTo("192.0.2.1");
        assertThat(c.onSubnet((java.net.Inet4Address) InetAddress.getByName("192.0.2.200"))).isTrue();
        assertThat(c.onSubnet((java.net.Inet4Address) InetAddress.getByName("198.51.100.1"))).isFalse();
        TapStack.Config wide = c.withCidr("10.7.0.1/16");
        assertThat(wide.subnetCidr()).isEqualTo("10.7.0.0/16");
        assertThat(wide.peerAddress().getHostAddress()).isEqualTo("10.7.0.2");
        assertThat(wide.onSubnet((java.net.Inet4Address) InetAddress.getByName("10.7.255.254"))).isTrue();
    }

    @Test
    void interfaceNamesAreCheckedAsLinuxDoes() {
        assertThatThrownBy(() -> TapStack.Config.defaults().withTapName("thisnameiswaytoolongforlinux"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 15 bytes");
        assertThatThrownBy(() -> TapStack.Config.defaults().withTapName("a:b")).hasMessageContaining("invalid character");
        assertThat(TapStack.Config.defaults().withTapName("jnet%d").tapName()).isEqualTo("jnet%d");
    }

    @Test
    void fetchResolvesIpv4LiteralsOnly() throws UnknownHostException {
        assertThat(JnetFetch.resolve("192.0.2.1").getHostAddress()).isEqualTo("192.0.2.1");
        assertThatThrownBy(() -> JnetFetch.resolve("::1")).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("IPv4 only");
        assertThatThrownBy(() -> JnetFetch.resolve("localhost")).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("resolves no names").hasMessageNotContaining("10.0.0.1");
    }

    @Test
    void addressesAndDurationsPrintPlainly() throws UnknownHostException {
        InetAddress literal = InetAddress.getByAddress("192.0.2.1", new byte[] {(byte) 192, 0, 2, 1});
        assertThat(new InetSocketAddress(literal, 8000).toString()).as("the JDK form").isEqualTo("192.0.2.1/192.0.2.1:8000");
        assertThat(JnetStreams.hostPort(new InetSocketAddress(literal, 8000))).isEqualTo("192.0.2.1:8000");
        assertThat(JnetStreams.hostPort(new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 80))).isEqualTo("[2001:db8:0:0:0:0:0:1]:80");
        assertThat(JnetStreams.seconds(Duration.ofSeconds(10))).isEqualTo("10 s");
        assertThat(JnetStreams.seconds(Duration.ofMillis(2500))).isEqualTo("2.5 s");
    }
}
