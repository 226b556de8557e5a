package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Constructs of packetdrill that jnet drill cannot play are refused by name, never dropped. */
class DrillUnsupportedTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        0 < ipv6 2::2222 > 1::1111: . 1:1001(1000) ack 1 win 123                     | IPv6 encapsulation
        0 < ipv4 2.2.2.2 > 1.1.1.1: gre: . 1:1001(1000) ack 1 win 123                | GRE encapsulation
        0 < GREv0 . 1:1(0) win 1                                                     | GRE encapsulation
        0 < mpls (label 123, tc 1, [S], ttl 255): . 1:1001(1000) ack 1 win 123      | MPLS encapsulation
        0 < encap psp spi 12 . 1:1001(1000) ack 1 win 123                            | PSP/transport encapsulation ('encap')
        0 < ipv4 2.2.2.2 > 1.1.1.1 : psp spi 12: . 1:1001(1000) ack 1 win 123        | PSP/transport encapsulation ('psp')
        0 < sctp: INIT[flgs=0, tag=1, a_rwnd=1500, os=1, is=1, tsn=1]                | SCTP packets
        0 < P. 1:21(20) ack 1 win 257 {rep tcp src_port 0x0B63}                      | packet fuzzing instructions ({...} after a packet)
        0 < S 0:0(0) win 1 <mss 1000,mptcp capable>                                  | MPTCP options ('mptcp')
        0 f({(label 1, tc 0, [S], ttl 255)}) = 0                                     | MPLS label stack expressions
        0 f({flags 0xb000, sum 511, off 1023, key 1, seq 512}) = 0                   | GRE header expressions
        0 bind(3, {sa_family=AF_INET6, sin6_addr=fe80::1}, 28) = 0                   | IPv6 address 'fe80::1' (expected an expression (a number, ..., a name, a "string", [array] or {struct}))
        """)
    void refusedWithTheirName(String line, String what) {
        assertThat(Parse.error(line).reason()).isEqualTo("not supported by jnet drill: " + what);
    }

    @Test
    void ipv6AddressesInSystemCallsAreRefused() {
        assertThat(Parse.error("0 bind(3, {sa_family=AF_INET6, sin6_addr=inet6_addr(\"::1\")}, 28) = 0").reason())
            .isEqualTo("not supported by jnet drill: IPv6 addresses (inet6_addr)");
        assertThat(Parse.expr("AF_INET6")).isEqualTo(new Expr.Symbol(new SourcePos(1, 5), "AF_INET6"));
    }
}
