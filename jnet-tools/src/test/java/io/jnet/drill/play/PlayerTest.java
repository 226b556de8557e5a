package io.jnet.drill.play;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.drill.jnet.JnetTarget;
import io.jnet.drill.script.DrillParser;
import io.jnet.drill.script.Script;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The player's rules, played on jnet (virtual time: each script takes milliseconds of real time). */
class PlayerTest {
    static Verdict playOnJnet(String text) throws Exception {
        Script s = DrillParser.parse("test.pkt", text);
        try (JnetTarget t = new JnetTarget(addr("192.168.0.1"), addr("192.0.2.1"), addr("192.168.0.2"), 1500)) {
            return Player.play(s, t, Player.Options.defaults());
        }
    }

    static Inet4Address addr(String s) throws Exception { return (Inet4Address) InetAddress.getByName(s); }

    static String resource(String name) throws Exception {
        try (var in = PlayerTest.class.getResourceAsStream("/drill-play/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A listener on 8080 with an established connection accepted as fd 4, timestamps off. */
    static final String ESTABLISHED = """
            `sysctl -q net.ipv4.tcp_timestamps=0`
            0     socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
            +0    setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
            +0    bind(3, ..., ...) = 0
            +0    listen(3, 1) = 0
            +0    < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
            +0    > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 7>
            +.1   < . 1:1(0) ack 1 win 257
            +0    accept(3, ..., ...) = 4
            """;

    @Test
    void passiveOpenAndWrite() throws Exception {
        Verdict v = playOnJnet(resource("passive-open-write.pkt"));
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }

    @Test
    void aWrongOptionFailsAtItsLineWithBothPackets() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED.replace("<mss 1460,nop,nop,sackOK,nop,wscale 7>", "<mss 1000,nop,nop,sackOK,nop,wscale 7>"));
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.line()).isEqualTo(7);
        assertThat(v.message()).contains("expected > S. 0:0(0) ack 1 <mss 1000").contains("actual   S. 0:0(0) ack 1 win 64240 <mss 1460")
                .contains("options <mss 1460,nop,nop,sackOK,nop,wscale 7>, expected <mss 1000,nop,nop,sackOK,nop,wscale 7>");
    }

    @Test
    void aPacketThatComesLateFailsWithItsTimes() throws Exception {
        // the retransmission of unacknowledged data comes one RTO (about 300 ms here) after the send, not 100 ms
        Verdict v = playOnJnet(ESTABLISHED + """
                +0    write(4, ..., 1000) = 1000
                +0    > P. 1:1001(1000) ack 1
                +.1   > P. 1:1001(1000) ack 1
                """);
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.line()).isEqualTo(12);
        assertThat(v.message()).contains("nothing sent by 0.204");
    }

    @Test
    void aTimeRangeTakesAPacketAnywhereInIt() throws Exception {
        // the retransmission comes one RTO after the send: inside 0.2-1.2 s, not inside 0.05-0.1 s
        Verdict v = playOnJnet(ESTABLISHED + """
                +0    write(4, ..., 1000) = 1000
                +0    > P. 1:1001(1000) ack 1
                +.2~+1.2 > P. 1:1001(1000) ack 1
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
        v = playOnJnet(ESTABLISHED + """
                +0    write(4, ..., 1000) = 1000
                +0    > P. 1:1001(1000) ack 1
                +.05~+.1 > P. 1:1001(1000) ack 1
                """);
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.message()).contains("nothing sent by 0.204");
    }

    @Test
    void theUrgentPointerIsComparedWhenTheLineGivesIt() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + "+0 send(4, ..., 1, MSG_OOB) = 1\n+0 > PU. 1:2(1) ack 1 urg 1\n");
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
        v = playOnJnet(ESTABLISHED + "+0 send(4, ..., 1, MSG_OOB) = 1\n+0 > PU. 1:2(1) ack 1 urg 2\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.message()).contains("actual   PU. 1:2(1) ack 1 win ").contains(" urg 1 ").contains("urg 1, expected 2");
    }

    @Test
    void aWrongReturnValueAndAWrongErrnoFail() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + "+0 write(4, ..., 1000) = 999\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.message()).isEqualTo("write(4, ..., 1000) = 1000, expected 999");
        v = playOnJnet(ESTABLISHED + "+0 close(9) = -1 EAGAIN (Resource temporarily unavailable)\n");
        assertThat(v.message()).isEqualTo("close(9) = -1 EBADF (Bad file descriptor), expected -1 EAGAIN");
        v = playOnJnet(ESTABLISHED + "+0 close(9) = -1 EBADF (Bad file descriptor)\n");
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }

    @Test
    void aBlockingReadReturnsWhenDataArrivesAtItsEnd() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + """
                +0...0.2 read(4, ..., 1000) = 100
                +.2   < P. 1:101(100) ack 1 win 257
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
        v = playOnJnet(ESTABLISHED + """
                +0...0.1 read(4, ..., 1000) = 100
                +.2   < P. 1:101(100) ack 1 win 257
                """);
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.message()).contains("read(4, ..., 1000)").contains("expected to return at 0.2");
    }

    @Test
    void aCallThatBlocksWithoutEllipsisFails() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + "+0 read(4, ..., 1000) = 100\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        // both causes named: a script that forgot ...END, or a call slower than the tolerance (a loaded machine)
        assertThat(v.message()).startsWith("read(4, ..., 1000) called at 0.1").contains("had not returned")
                .contains("it blocked (a call that should block needs ...END").contains("slower than the tolerance");
    }

    @Test
    void nonBlockingReadGivesEagain() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + """
                +0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0
                +0 fcntl(4, F_GETFL) = 0x802
                +0 read(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)
                +0 < P. 1:101(100) ack 1 win 257
                +0 ioctl(4, FIONREAD, [100]) = 0
                +0 read(4, ..., 1000) = 100
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }

    @Test
    void otherShellCommandsAreUnsupportedNotPassed() throws Exception {
        Verdict v = playOnJnet("`ip link set dev tun0 mtu 1400`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.UNSUPPORTED);
        assertThat(v.message()).contains("ip link set dev tun0 mtu 1400");
    }

    @Test
    void anUnknownSysctlFails() throws Exception {
        Verdict v = playOnJnet("`sysctl -q net.ipv4.tcp_no_such_thing=1`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.message()).contains("net.ipv4.tcp_no_such_thing");
    }

    @Test
    void beforeTheStacksSynAcksAreSentAsWrittenAndItsSequenceNumbersReadAbsolute() throws Exception {
        // packetdrill's offset for an inbound ack is the stack's live ISN, 0 while the socket never sent a SYN
        Verdict v = playOnJnet("""
                0  socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 bind(3, ..., ...) = 0
                +0 < . 1:1(0) ack 5001 win 1000
                +0 > R 5001:5001(0)
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }

    @Test
    void segmentsCoveringOneExpectedSegmentMatchIt() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + """
                +0 write(4, ..., 3000) = 3000
                +0 > P. 1:3001(3000) ack 1
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }

    @Test
    void codeBlocksAssertOnTheTcpInfoOfTheSocketUnderTest() throws Exception {
        Verdict v = playOnJnet(ESTABLISHED + """
                +0 %{
                assert tcpi_state == TCP_ESTABLISHED, tcpi_state
                assert tcpi_snd_mss == 1000, tcpi_snd_mss
                assert tcpi_ca_state == TCP_CA_Open
                }%
                """);
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
        v = playOnJnet(ESTABLISHED + "+0 %{ assert tcpi_snd_mss == 1460, tcpi_snd_mss }%\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.line()).isEqualTo(10);
        assertThat(v.message()).contains("assert tcpi_snd_mss == 1460").contains("tcpi_snd_mss = 1000");
        v = playOnJnet(ESTABLISHED + "+0 %{ import os }%\n");
        assertThat(v.status()).isEqualTo(Verdict.Status.UNSUPPORTED);
    }
}
