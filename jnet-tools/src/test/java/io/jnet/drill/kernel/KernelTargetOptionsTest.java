package io.jnet.drill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KernelTargetOptionsTest {

    @Test
    void defaultsArePacketdrills() {
        KernelTarget.Options d = KernelTarget.Options.DEFAULTS;
        assertThat(d.localAddress().getHostAddress()).isEqualTo("192.168.0.1");
        assertThat(d.gatewayAddress().getHostAddress()).isEqualTo("192.168.0.2");
        assertThat(d.remoteAddress().getHostAddress()).isEqualTo("192.0.2.1");
        assertThat(d.prefixLength()).isEqualTo(16);
        assertThat(d.mtu()).isEqualTo(1500);
        assertThat(d.offload()).isTrue();
        assertThat(d.withMtu(9000).mtu()).isEqualTo(9000);
    }

    @Test
    void refusesNonsense() {
        KernelTarget.Options d = KernelTarget.Options.DEFAULTS;
        assertThatThrownBy(() -> d.withMtu(67)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withGatewayAddress(KernelTarget.Options.ipv4("10.0.0.1")))
                .hasMessageContaining("not in 192.168.0.1/16");
        assertThatThrownBy(() -> d.withRemoteAddress(d.localAddress())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KernelTarget.Options.ipv4("example.org")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyIpv4PacketsOtherThanIgmpGoOut() {
        byte[] tcp = new byte[40];
        tcp[0] = 0x45;
        tcp[9] = 6;
        byte[] igmp = tcp.clone();
        igmp[9] = 2;
        byte[] v6 = new byte[40];
        v6[0] = 0x60;
        assertThat(KernelTarget.isWanted(tcp)).isTrue();
        assertThat(KernelTarget.isWanted(igmp)).isFalse();
        assertThat(KernelTarget.isWanted(v6)).isFalse();
        assertThat(KernelTarget.isWanted(new byte[3])).isFalse();
    }
}
