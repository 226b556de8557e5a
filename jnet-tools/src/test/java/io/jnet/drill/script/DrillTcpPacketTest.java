package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DrillTcpPacketTest {

    @Test
    void inboundSynWithWindowAndOptions() {
        TcpPacket p = Parse.tcp("+0 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>");
        assertThat(p.direction()).isEqualTo(Direction.INBOUND);
        assertThat(p.flags()).isEqualTo("S");
        assertThat(p.seqStart()).isZero();
        assertThat(p.seqEnd()).isZero();
        assertThat(p.payloadLength()).isZero();
        assertThat(p.ack()).isEmpty();
        assertThat(p.window()).isEqualTo(OptionalInt.of(32792));
        assertThat(p.options()).hasSize(6);
        assertThat(p.anyOptions()).isFalse();
        assertThat(p.pos()).isEqualTo(new SourcePos(1, 4));
    }

    @Test
    void outboundDataWithAck() {
        TcpPacket p = Parse.tcp("+0 > P. 1:1001(1000) ack 1");
        assertThat(p.direction()).isEqualTo(Direction.OUTBOUND);
        assertThat(p.flags()).isEqualTo("P.");
        assertThat(p.hasFlag('P')).isTrue();
        assertThat(p.hasFlag('.')).isTrue();
        assertThat(p.hasFlag('S')).isFalse();
        assertThat(p.seqStart()).isEqualTo(1);
        assertThat(p.seqEnd()).isEqualTo(1001);
        assertThat(p.payloadLength()).isEqualTo(1000);
        assertThat(p.ack()).isEqualTo(OptionalLong.of(1));
        assertThat(p.window()).isEmpty();
        assertThat(p.options()).isEmpty();
        assertThat(p.render()).isEqualTo("> P. 1:1001(1000) ack 1");
    }

    @Test
    void everyFlagSpelling() {
        for (String f : List.of("S", "S.", ".", "P.", "F.", "R.", "R", "F", "FP.", "SEW", "SE.", "E.", "W.", "U.",
                "SEWA", "SW.", "EAP.", "WA.")) {
            assertThat(Parse.tcp("0 > " + f + " 1:1(0)").flags()).as(f).isEqualTo(f);
        }
        assertThat(Parse.tcp("0 < S . 0:0(0) win 1").flags()).isEqualTo("S.");
        assertThat(Parse.tcp("0 < - 1:1(0) win 1").flags()).isEmpty();
        assertThat(Parse.tcp("0 < - 1:1(0) win 1").render()).isEqualTo("< - 1:1(0) win 1");
    }

    @Test
    void invalidFlagsAreRefused() {
        assertThat(Parse.error("0 > SX 0:0(0)").reason()).startsWith("invalid TCP flag 'X' in 'SX'");
        assertThat(Parse.error("0 > 5 0:0(0)").reason()).startsWith("expected TCP flags (S, S., ., P., F., R, - ...)");
    }

    @Test
    void urgentPointerAndAllFieldsInOrder() {
        TcpPacket p = Parse.tcp("0 < U. 1:2(1) ack 7 win 100 urg 1 <nop>");
        assertThat(p.urgentPointer()).isEqualTo(OptionalInt.of(1));
        assertThat(p.render()).isEqualTo("< U. 1:2(1) ack 7 win 100 urg 1 <nop>");
    }

    @Test
    void fieldsOutOfOrderAreRefused() {
        assertThat(Parse.error("0 < . 1:1(0) win 10 ack 1").reason()).startsWith("'ack' out of place: a TCP line reads");
        assertThat(Parse.error("0 < . 1:1(0) <nop> win 10").reason()).startsWith("'win' out of place");
    }

    @Test
    void sequenceNumbersMustAgreeWithThePayloadLength() {
        assertThat(Parse.error("0 > . 1:1000(1000) ack 1").reason())
            .isEqualTo("inconsistent TCP sequence numbers and payload length: 1 + 1000 is not 1000");
        assertThat(Parse.tcp("0 > . 4294966295:4294967295(1000)").seqEnd()).isEqualTo(4294967295L);
    }

    @Test
    void numbersOutOfRangeAreRefused() {
        assertThat(Parse.error("0 > . 4294967296:4294967296(0)").reason())
            .isEqualTo("TCP start sequence number 4294967296 out of range (0..4294967295)");
        assertThat(Parse.error("0 > . 1:65537(65536)").reason()).startsWith("TCP payload length 65536 out of range");
        assertThat(Parse.error("0 < . 1:1(0) win 65536").reason()).isEqualTo("TCP window 65536 out of range (0..65535)");
        assertThat(Parse.error("0 < . 1:1(0) ack -1").reason()).startsWith("TCP ack sequence number -1 out of range");
        assertThat(Parse.error("0 < . 1:1(0) urg 70000").reason()).startsWith("TCP urgent pointer 70000 out of range");
        assertThat(Parse.error("0 < . 1:1(0) ack 99999999999999999999").reason())
            .isEqualTo("number 99999999999999999999 out of range (64 bits)");
    }

    @Test
    void malformedSequenceNumbersAreRefused() {
        assertThat(Parse.error("0 > . 1:1001 ack 1").reason()).isEqualTo("expected '(' before the payload length, found 'ack'");
        assertThat(Parse.error("0 > . ack 1").reason()).startsWith("expected sequence numbers start:end(length) after the flags");
        assertThat(Parse.error("0 > . 1 1(0)").reason()).startsWith("expected ':' between the start and end sequence numbers");
    }

    @Test
    void anyOptionsOnlyOutbound() {
        TcpPacket p = Parse.tcp("0 > S. 0:0(0) ack 1 <...>");
        assertThat(p.anyOptions()).isTrue();
        assertThat(p.options()).isEmpty();
        assertThat(p.render()).isEqualTo("> S. 0:0(0) ack 1 <...>");
        assertThat(Parse.error("0 < S 0:0(0) win 1 <...>").reason())
            .isEqualTo("<...> for TCP options can only be used with outbound packets");
    }

    @Test
    void explicitPorts() {
        TcpPacket p = Parse.tcp("0 < 40000>8080 S 0:0(0) win 100");
        assertThat(p.ports()).contains(new Ports(new SourcePos(1, 5), 40000, 8080));
        assertThat(p.render()).isEqualTo("< 40000>8080 S 0:0(0) win 100");
        assertThat(Parse.error("0 < 70000>80 S 0:0(0) win 1").reason()).startsWith("source port 70000 out of range");
        assertThat(Parse.error("0 < 7>-1 S 0:0(0) win 1").reason()).startsWith("destination port -1 out of range");
    }

    @Test
    void aPacketLineEndsTheEvent() {
        assertThat(Parse.error("0 > . 1:1(0) ack 1 win 10 bogus").reason())
            .isEqualTo("unexpected 'bogus' after the packet");
        assertThat(Parse.error("0 > . 1:1(0) ack 1\nbogus(3) = 0").reason())
            .startsWith("expected an event time (like 0.100, +0.1 or *) to start the next event, found 'bogus'");
    }

    @Test
    void theTreeIsAValue() {
        TcpPacket a = Parse.tcp("0 > . 1:1(0) ack 1");
        TcpPacket b = Parse.tcp("0 > . 1:1(0) ack 1");
        assertThat(a).isEqualTo(b);
        assertThat(a.ip()).isEqualTo(Optional.empty());
        assertThat(a.encapsulation()).isEmpty();
    }
}
