package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every construct renders back in packetdrill's syntax, and the rendering parses to the same tree. */
class DrillRenderTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3",
        "+0.100 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>",
        "+0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>",
        "* > F. 1001:1001(0) ack 1 <...>",
        "0.100~0.200 > P. 1:1001(1000) ack 1",
        "+0.210~+0.215 > P. 1:41(40) ack 1",
        "+0...0.200 accept(3, ..., ...) = 4",
        "0.100...0.350 read(4, ..., 1000) = 500",
        "+0 read(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)",
        "+0 setsockopt(3, SOL_TCP, TCP_FASTOPEN_KEY, \"\", 0) = -1 (Invalid Argument)",
        "+0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0",
        "+0 bind(3, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"192.0.2.1\")}, 16) = 0",
        "+0 sendmsg(4, {msg_name(...)=..., msg_iov(1)=[{iov_base=..., iov_len=1000}], msg_flags=0}, 0) = 1000",
        "+0 poll([{fd=4, events=POLLIN, revents=POLLOUT}], 1, 0) = 1",
        "+0 write(4, \"hello\"..., 5) = 5",
        "+0 getsockopt(3, SOL_TCP, TCP_NOTSENT_LOWAT, [0xffffffff], [4]) = 0",
        "+0 < icmp unreachable frag_needed mtu 1200 [1:1001(1000)]",
        "+0 < icmp unreachable port_unreachable [udp (20)]",
        "+0 > icmp echo_reply id 7",
        "+0 < udp 5000>53 (100)",
        "+0 > [ect0] P. 1:1001(1000) ack 1",
        "+0 > [tos 0x12,flowlabel 0x1] . 1:1(0)",
        "+0 < ipv4 [ttl 3] 10.0.0.2 > 10.0.0.1: 40000>8080 S 0:0(0) win 32792",
        "+0 < - 1:1(0) win 10 urg 1",
        "+0 `sysctl -q net.ipv4.tcp_sack=0`",
        "+0 %{ assert tcpi_snd_cwnd == 10 }%",
    })
    void eventsRenderAsWritten(String line) {
        Event e = Parse.event(line);
        assertThat(e.render()).isEqualTo(line);
        assertThat(e.toString()).isEqualTo(line);
        assertThat(Parse.event(e.render()).render()).isEqualTo(line);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "+.1 < . 1:1(0) ack 1 win 257|+0.100 < . 1:1(0) ack 1 win 257",
        "0.1 close(3) = 0|0.100 close(3) = 0",
        "+0   >   P.   1:11(10)  ack 1|+0 > P. 1:11(10) ack 1",
        "+0 < S . 0:0(0) win 1 < mss 1000 , nop >|+0 < S. 0:0(0) win 1 <mss 1000,nop>",
        "+0 > (ect0) . 1:1(0)|+0 > [ect0] . 1:1(0)",
        "+0 f({a = 1,b=[ 1 ,2 ]}) = 0x0A|+0 f({a=1, b=[1, 2]}) = 0xa",
        "+0 close(3) = 0 (a  note\n  over lines)|+0 close(3) = 0 (a note over lines)",
    })
    void layoutIsNormalised(String pair) {
        String[] p = pair.split("\\|");
        assertThat(Parse.event(p[0]).render()).isEqualTo(p[1]);
    }
}
