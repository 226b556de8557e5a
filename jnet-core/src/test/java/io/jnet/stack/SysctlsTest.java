package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Sysctl names, Linux defaults, parsing and validation. */
class SysctlsTest {
    final Sysctls s = new Sysctls();

    @Test
    void linuxDefaults() {
        assertThat(s.get("net.ipv4.tcp_syn_retries")).isEqualTo("6");
        assertThat(s.get("net.ipv4.tcp_tw_reuse")).isEqualTo("2");
        assertThat(s.get("net.ipv4.tcp_fin_timeout")).isEqualTo("60");
        assertThat(s.tcpRmem.intValue(0)).isEqualTo(4096);
        assertThat(s.tcpRmem.intValue(1)).isEqualTo(131072);
        assertThat(s.tcpRmem.intValue(2)).isEqualTo(6291456);
        assertThat(s.ipLocalPortRange.intValue(0)).isEqualTo(32768);
        assertThat(s.ipLocalPortRange.intValue(1)).isEqualTo(60999);
        assertThat(s.somaxconn.intValue()).isEqualTo(4096);
    }

    @Test
    void procPathsAndDottedNamesAreTheSameSysctl() {
        s.set("/proc/sys/net/ipv4/tcp_syn_retries", "2");
        assertThat(s.tcpSynRetries.intValue()).isEqualTo(2);
        assertThat(s.get("net.ipv4.tcp_syn_retries")).isEqualTo("2");
        assertThat(s.lookup("net/ipv4/tcp_syn_retries")).isSameAs(s.tcpSynRetries);
    }

    @Test
    void badNamesAndValuesAreRejected() {
        assertThatThrownBy(() -> s.set("net.ipv4.no_such_thing", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.set("net.ipv4.tcp_syn_retries", "0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.set("net.ipv4.tcp_syn_retries", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.set("net.ipv4.ip_local_port_range", "5000 4000")).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.tcpSynRetries.intValue()).as("unchanged after a rejected write").isEqualTo(6);
    }

    @Test
    void vectorValuesParseAsLinuxPrintsThem() {
        s.set("net.ipv4.ip_local_port_range", "40000 40009");
        assertThat(s.ipLocalPortRange.intValue(0)).isEqualTo(40000);
        assertThat(s.ipLocalPortRange.intValue(1)).isEqualTo(40009);
        assertThat(s.dump()).contains("net.ipv4.ip_local_port_range = 40000\t40009");
    }

    @Test
    void laterFeaturesRegisterOnce() {
        Sysctl a = s.register("net.jnet.test_feature", "boolean", "test", 0, 1, 1);
        Sysctl b = s.register("net.jnet.test_feature", "boolean", "test", 0, 1, 0);
        assertThat(b).isSameAs(a);
        assertThat(s.get("net.jnet.test_feature")).isEqualTo("1");
    }

    @org.junit.jupiter.api.Test
    void theCongestionControlIsSetByNameAndAnUnavailableOneIsRefused() {
        org.assertj.core.api.Assertions.assertThat(s.get("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        s.set("net.ipv4.tcp_congestion_control", "reno\n");
        org.assertj.core.api.Assertions.assertThat(s.tcpCongestionControl.get()).isEqualTo("reno");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.set("net.ipv4.tcp_congestion_control", "cubic"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("No such file or directory");
        org.assertj.core.api.Assertions.assertThat(s.dump()).contains("net.ipv4.tcp_congestion_control = reno");
    }
}
