package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DrillUdpIcmpTest {

    @Test
    void udpWithAndWithoutPorts() {
        UdpPacket u = Parse.action("0 < udp (100)", UdpPacket.class);
        assertThat(u.direction()).isEqualTo(Direction.INBOUND);
        assertThat(u.payloadLength()).isEqualTo(100);
        assertThat(u.ports()).isEmpty();
        UdpPacket v = Parse.action("0 > udp 5000>53 (20)", UdpPacket.class);
        assertThat(v.ports()).contains(new Ports(new SourcePos(1, 9), 5000, 53));
        assertThat(v.render()).isEqualTo("> udp 5000>53 (20)");
    }

    @Test
    void udpRefusesEcnAndBadLengths() {
        assertThat(Parse.error("0 < [ect0] udp (10)").reason()).isEqualTo("ECN can only be used with TCP packets");
        assertThat(Parse.error("0 < udp (65536)").reason()).startsWith("UDP payload length 65536 out of range");
        assertThat(Parse.error("0 < udp 100").reason()).startsWith("expected '(' before the UDP payload length, found '100'");
        assertThat(Parse.action("0 > [ttl 64] udp (10)", UdpPacket.class).ip().orElseThrow().ttl()).isEqualTo(OptionalInt.of(64));
    }

    @Test
    void icmpFragmentationNeededQuotingTcp() {
        IcmpPacket i = Parse.action("0 < icmp unreachable frag_needed mtu 1200 [1:1001(1000)]", IcmpPacket.class);
        assertThat(i.type()).isEqualTo("unreachable");
        assertThat(i.code()).contains("frag_needed");
        assertThat(i.mtu()).isEqualTo(OptionalInt.of(1200));
        assertThat(i.echoId()).isEmpty();
        assertThat(i.quoted()).contains(new IcmpQuoted.Tcp(new SourcePos(1, 43), 1, 1001, 1000));
        assertThat(i.render()).isEqualTo("< icmp unreachable frag_needed mtu 1200 [1:1001(1000)]");
    }

    @Test
    void icmpOtherForms() {
        IcmpPacket udp = Parse.action("0 < icmp unreachable port_unreachable [udp (20)]", IcmpPacket.class);
        assertThat(udp.quoted()).contains(new IcmpQuoted.Udp(new SourcePos(1, 39), 20));
        IcmpPacket raw = Parse.action("0 < icmp time_exceeded [raw (28)]", IcmpPacket.class);
        assertThat(raw.code()).isEmpty();
        assertThat(raw.quoted()).contains(new IcmpQuoted.Raw(new SourcePos(1, 24), 28));
        IcmpPacket echo = Parse.action("0 > icmp echo_reply id 7", IcmpPacket.class);
        assertThat(echo.echoId()).isEqualTo(OptionalInt.of(7));
        assertThat(echo.quoted()).isEqualTo(Optional.empty());
        IcmpPacket bare = Parse.action("0 < icmp unreachable frag_needed mtu 800", IcmpPacket.class);
        assertThat(bare.render()).isEqualTo("< icmp unreachable frag_needed mtu 800");
        assertThat(Parse.action("0 < [tos 0x0] icmp unreachable host_unreachable", IcmpPacket.class).ip()).isPresent();
    }

    @Test
    void malformedIcmpIsRefused() {
        assertThat(Parse.error("0 < icmp").reason()).startsWith("expected the ICMP type (unreachable, time_exceeded, echo_request ...) after 'icmp'");
        assertThat(Parse.error("0 < icmp mtu 5").reason()).startsWith("expected the ICMP type");
        assertThat(Parse.error("0 < icmp unreachable frag_needed mtu x").reason()).startsWith("expected a number for the ICMP mtu");
        assertThat(Parse.error("0 < icmp unreachable [1:1000(1000)]").reason()).startsWith("inconsistent TCP sequence numbers");
        assertThat(Parse.error("0 < icmp unreachable [udp 20]").reason()).startsWith("expected '(' before the quoted payload length");
        assertThat(Parse.error("0 < icmp unreachable [1:1(0)").reason()).startsWith("expected ']' to end the quoted packet");
    }
}
