package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DrillIpFieldsTest {

    @Test
    void everyEcnMark() {
        for (Ecn e : Ecn.values()) {
            TcpPacket p = Parse.tcp("0 > [" + e.keyword() + "] . 1:1(0)");
            assertThat(p.ip().orElseThrow().ecn()).contains(e);
            assertThat(p.render()).isEqualTo("> [" + e.keyword() + "] . 1:1(0)");
        }
    }

    @Test
    void ect01OnlyOutbound() {
        assertThat(Parse.error("0 < [ect01] . 1:1(0) win 1").reason()).isEqualTo("[ect01] can only be used with outbound packets");
        assertThat(Parse.error("0 < [ect01] icmp echo_request").reason()).isEqualTo("[ect01] can only be used with outbound packets");
    }

    @Test
    void tosTtlAndFlowLabelInBracketsOrParentheses() {
        IpInfo tos = Parse.tcp("0 > (tos 0x12) . 1:1(0)").ip().orElseThrow();
        assertThat(tos.tos()).isEqualTo(OptionalInt.of(0x12));
        assertThat(tos.ecn()).isEmpty();
        assertThat(tos.render()).isEqualTo("[tos 0x12]");
        assertThat(Parse.tcp("0 > [ttl 3] . 1:1(0)").ip().orElseThrow().ttl()).isEqualTo(OptionalInt.of(3));
        IpInfo both = Parse.tcp("0 > [ect1,flowlabel 0x12345] . 1:1(0)").ip().orElseThrow();
        assertThat(both.ecn()).contains(Ecn.ECT1);
        assertThat(both.flowLabel()).isEqualTo(OptionalInt.of(0x12345));
        assertThat(both.render()).isEqualTo("[ect1,flowlabel 0x12345]");
        assertThat(Parse.tcp("0 > [flowlabel 0x1] . 1:1(0)").ip().orElseThrow().flowLabel()).isEqualTo(OptionalInt.of(1));
    }

    @Test
    void badIpFieldsAreRefused() {
        assertThat(Parse.error("0 > [tos 0x100] . 1:1(0)").reason()).isEqualTo("tos 0x100 out of range (0..255)");
        assertThat(Parse.error("0 > [flowlabel 0x100000] . 1:1(0)").reason()).startsWith("flowlabel 0x100000 out of range");
        assertThat(Parse.error("0 > [ect2] . 1:1(0)").reason()).startsWith("expected an IP field (noecn, ect0, ect1, ce, ect01");
        assertThat(Parse.error("0 > [ect0 . 1:1(0)").reason()).isEqualTo("expected ']' to end the IP fields, found '.'");
        assertThat(Parse.error("0 > [ttl 1,flowlabel 0x1] . 1:1(0)").reason()).startsWith("expected ']' to end the IP fields");
    }

    @Test
    void ipv4Encapsulation() throws Exception {
        TcpPacket p = Parse.tcp("0 < ipv4 [ttl 3] 10.0.0.2 > 10.0.0.1: ipv4 1.1.1.1 > 2.2.2.2: [ect0] . 1:1(0) win 1");
        assertThat(p.encapsulation()).hasSize(2);
        Ipv4Encapsulation outer = p.encapsulation().get(0);
        assertThat(outer.source()).isEqualTo(InetAddress.getByName("10.0.0.2"));
        assertThat(outer.destination()).isEqualTo(InetAddress.getByName("10.0.0.1"));
        assertThat(outer.ip().orElseThrow().ttl()).isEqualTo(OptionalInt.of(3));
        assertThat(p.encapsulation().get(1).ip()).isEqualTo(Optional.empty());
        assertThat(p.ip().orElseThrow().ecn()).contains(Ecn.ECT0);
        assertThat(p.render()).isEqualTo("< ipv4 [ttl 3] 10.0.0.2 > 10.0.0.1: ipv4 1.1.1.1 > 2.2.2.2: [ect0] . 1:1(0) win 1");
        assertThat(Parse.action("0 < ipv4 10.0.0.2 > 10.0.0.1 : udp (1)", UdpPacket.class).encapsulation()).hasSize(1);
    }

    @Test
    void badEncapsulationsAreRefused() {
        assertThat(Parse.error("0 < ipv4 10.0.0.256 > 10.0.0.1: . 1:1(0)").reason()).isEqualTo("invalid IPv4 address '10.0.0.256'");
        assertThat(Parse.error("0 < ipv4 10.0.0.2 10.0.0.1: . 1:1(0)").reason()).startsWith("expected '>' between the outer addresses");
        assertThat(Parse.error("0 < ipv4 10.0.0.2 > 10.0.0.1 . 1:1(0)").reason()).startsWith("expected ':' after the outer IPv4 header's addresses");
        assertThat(Parse.error("0 < ipv4 . 1:1(0)").reason()).startsWith("expected the outer source address after 'ipv4'");
    }
}
