package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import org.junit.jupiter.api.Test;

/** The per-device {@code net.ipv4.conf.<dev>} sysctls and their propagation, as Linux's devinet. */
class DeviceSysctlsTest {

    @Test
    void ipForwardAndConfAllForwardingAreOneSwitchThatSetsEveryDevice() {
        try (NetNamespace ns = NetNamespace.create("fwd-sysctl")) {
            assertThat(ns.sysctl().get("net.ipv4.ip_forward")).isEqualTo("0");
            assertThat(ns.sysctl().get("net.ipv4.conf.lo.forwarding")).isEqualTo("0");
            ns.sysctl().set("net.ipv4.conf.all.forwarding", "1");
            assertThat(ns.sysctl().get("net.ipv4.ip_forward")).isEqualTo("1");
            assertThat(ns.sysctl().get("net.ipv4.conf.default.forwarding")).isEqualTo("1");
            assertThat(ns.sysctl().get("net.ipv4.conf.lo.forwarding")).isEqualTo("1");
            ns.attach(VethPair.create("x0", "x1").a());
            assertThat(ns.sysctl().get("net.ipv4.conf.x0.forwarding")).as("from conf.default").isEqualTo("1");
            assertThat(ns.sysctl().get("net.ipv4.conf.x0.send_redirects")).isEqualTo("1");
            ns.sysctl().set("net.ipv4.conf.x0.forwarding", "0");
            assertThat(ns.sysctl().get("net.ipv4.ip_forward")).isEqualTo("1");
            ns.sysctl().set("net.ipv4.ip_forward", "0");
            assertThat(ns.sysctl().get("net.ipv4.conf.all.forwarding")).isEqualTo("0");
            assertThat(ns.sysctl().get("net.ipv4.conf.lo.forwarding")).isEqualTo("0");
            assertThatThrownBy(() -> ns.sysctl().set("net.ipv4.conf.x0.rp_filter", "3")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void rpFilterInForceIsTheLargerOfAllAndTheDevice() {
        try (NetNamespace ns = NetNamespace.create("rpf-sysctl")) {
            Interface lo = ns.loopbackInterface();
            assertThat(lo.conf().effectiveRpFilter(ns.sysctl())).isZero();
            ns.sysctl().set("net.ipv4.conf.lo.rp_filter", "1");
            assertThat(lo.conf().effectiveRpFilter(ns.sysctl())).isEqualTo(1);
            ns.sysctl().set("net.ipv4.conf.all.rp_filter", "2");
            assertThat(lo.conf().effectiveRpFilter(ns.sysctl())).isEqualTo(2);
            ns.sysctl().set("net.ipv4.conf.default.rp_filter", "1");
            ns.attach(VethPair.create("y0", "y1").a());
            assertThat(ns.sysctl().get("net.ipv4.conf.y0.rp_filter")).isEqualTo("1");
            assertThatThrownBy(() -> ns.sysctl().registerDevice("y0")).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
