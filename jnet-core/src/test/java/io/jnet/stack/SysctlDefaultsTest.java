package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SysctlDefaultsTest {
    private final Sysctls s = new Sysctls();

    @Test
    void linuxDefaults() {
        assertThat(s.get("net.ipv4.tcp_rmem")).isEqualTo("4096\t131072\t6291456");
        assertThat(s.get("net.ipv4.tcp_wmem")).isEqualTo("4096\t16384\t4194304");
        assertThat(s.get("net.ipv4.ip_local_port_range")).isEqualTo("32768\t60999");
        assertThat(s.tcpTimestamps.intValue()).isEqualTo(1);
        assertThat(s.tcpSynRetries.intValue()).isEqualTo(6);
        assertThat(s.tcpFinTimeout.intValue()).isEqualTo(60);
        assertThat(s.tcpTwReuse.intValue()).isEqualTo(2);
        assertThat(s.ipfragHighThresh.intValue()).isEqualTo(4194304);
        assertThat(s.ipfragTime.intValue()).isEqualTo(30);
        assertThat(s.tcpRtoMinUs.intValue()).isEqualTo(200000);
        assertThat(s.busyRead.intValue()).isZero();
        assertThat(s.busyPoll.intValue()).isZero();
        assertThat(s.tcpFriends.intValue()).isZero();
        assertThat(s.tcpStdurg.intValue()).as("BSD's urgent pointer").isZero();
        assertThat(s.get("net.ipv4.ip_forward")).isEqualTo("0");
        assertThat(s.get("net.ipv4.conf.all.forwarding")).isEqualTo("0");
        assertThat(s.get("net.ipv4.conf.all.rp_filter")).isEqualTo("0");
    }

    @Test
    void procPathsAndValidation() {
        s.set("/proc/sys/net/ipv4/tcp_timestamps", "0");
        assertThat(s.tcpTimestamps.enabled()).isFalse();
        assertThatThrownBy(() -> s.set("net.ipv4.tcp_timestamps", "3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> s.set("net.ipv4.tcp_rmem", "4096 100")).hasMessageContaining("expected 3");
        assertThatThrownBy(() -> s.set("net.ipv4.ip_local_port_range", "5000 4000")).hasMessageContaining("must not decrease");
        assertThatThrownBy(() -> s.set("net.ipv4.nope", "1")).hasMessageContaining("unknown sysctl");
        assertThatThrownBy(() -> s.set("net.ipv4.tcp_syn_retries", "x")).hasMessageContaining("not a number");
        s.set("net.ipv4.tcp_rmem", "8192 65536 1048576");
        assertThat(s.tcpRmem.intValue(2)).isEqualTo(1048576);
        s.tcpRmem.reset();
        assertThat(s.tcpRmem.intValue(1)).isEqualTo(131072);
        assertThat(s.dump()).contains("net.ipv4.tcp_tw_reuse = 2");
    }
}
