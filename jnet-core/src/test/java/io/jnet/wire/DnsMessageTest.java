package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.wire.DnsMessage.Question;
import io.jnet.wire.DnsMessage.ResourceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The DNS codec on hand-made messages and on responses captured from dnsmasq 2.90 (Debian 12), saved under
 * {@code src/test/resources/dns}: dnsmasq ran in a Linux network namespace with {@code --no-resolv --no-hosts
 * --local=/example.test/ --local-ttl=300 --host-record=host.example.test,192.0.2.11
 * --cname=www.example.test,host.example.test} and 40 {@code --host-record=big.example.test,192.0.2.101..140}, and a
 * python3 UDP client wrote the answers to A www.example.test (ID 0x1234), A nosuch.example.test (0x2345), PTR
 * 11.2.0.192.in-addr.arpa (0x3456) and A big.example.test (0x4567, truncated to 29 records with TC set).
 */
class DnsMessageTest {

    static byte[] resource(String name) throws IOException {
        try (InputStream in = DnsMessageTest.class.getResourceAsStream("/dns/" + name)) {
            assertThat(in).as("test resource /dns/%s", name).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void aQueryIsTheBytesRfc1035Describes() {
        byte[] q = DnsMessage.query(0xBEEF, "www.example.test", Dns.TYPE_A).encode();
        assertThat(HexFormat.of().formatHex(q)).isEqualTo("beef" + "0100" + "0001" + "0000" + "0000" + "0000"
                + "03777777" + "076578616d706c65" + "0474657374" + "00" + "0001" + "0001");
        assertThat(Dns.isResponse(q, 0)).isFalse();
        assertThat(DnsMessage.query(1, "example.test.", Dns.TYPE_PTR).questions().get(0).name()).isEqualTo("example.test");
    }

    @Test
    void dnsmasqsCnameAnswerWithAPointerIntoTheMiddleOfAName() throws Exception {
        byte[] b = resource("dnsmasq-cname.bin");
        DnsMessage m = DnsMessage.parse(b, 0, b.length);
        assertThat(m.id()).isEqualTo(0x1234);
        assertThat(m.isResponse()).isTrue();
        assertThat(m.isAuthoritative()).isTrue();
        assertThat(m.recursionDesired()).isTrue();
        assertThat(m.recursionAvailable()).isTrue();
        assertThat(m.isTruncated()).isFalse();
        assertThat(m.rcode()).isEqualTo(Dns.RCODE_NOERROR);
        assertThat(m.questions()).containsExactly(new Question("www.example.test", Dns.TYPE_A, Dns.CLASS_IN));
        assertThat(m.answers()).containsExactly(
                ResourceRecord.cname("www.example.test", 300, "host.example.test"),
                ResourceRecord.a("host.example.test", 300, InetAddress.ofLiteral("192.0.2.11")));
    }

    @Test
    void dnsmasqsNxdomainPtrAndTruncatedAnswers() throws Exception {
        byte[] nx = resource("dnsmasq-nx.bin");
        DnsMessage m = DnsMessage.parse(nx, 0, nx.length);
        assertThat(m.rcode()).isEqualTo(Dns.RCODE_NXDOMAIN);
        assertThat(m.answers()).isEmpty();
        assertThat(m.questions().get(0).name()).isEqualTo("nosuch.example.test");

        byte[] ptr = resource("dnsmasq-ptr.bin");
        m = DnsMessage.parse(ptr, 0, ptr.length);
        assertThat(m.answers()).containsExactly(ResourceRecord.ptr("11.2.0.192.in-addr.arpa", 300, "host.example.test"));

        byte[] big = resource("dnsmasq-big.bin");
        m = DnsMessage.parse(big, 0, big.length);
        assertThat(m.isTruncated()).isTrue();
        assertThat(Dns.isTruncated(big, 0)).isTrue();
        assertThat(m.answers()).hasSize(29).allSatisfy(r -> {
            assertThat(r.name()).isEqualTo("big.example.test");
            assertThat(r.address().getHostAddress()).startsWith("192.0.2.1");
        });
    }

    @Test
    void everyPrefixOfACapturedAnswerIsRefusedAsTruncated() throws Exception {
        for (String file : List.of("dnsmasq-cname.bin", "dnsmasq-nx.bin", "dnsmasq-ptr.bin", "dnsmasq-big.bin")) {
            byte[] b = resource(file);
            for (int len = 0; len < b.length; len++) {
                byte[] cut = new byte[len + 4];
                System.arraycopy(b, 0, cut, 2, len); // guard bytes on both sides
                int n = len;
                MalformedPacketException e = catchThrowableOfType(MalformedPacketException.class,
                        () -> DnsMessage.parse(cut, 2, n));
                assertThat(e).as("%s cut to %d bytes", file, len).isNotNull();
                assertThat(e.reason()).isEqualTo(MalformedPacketException.Reason.TRUNCATED);
            }
        }
    }

    @Test
    void encodeThenParseGivesTheMessageBack() throws Exception {
        DnsMessage m = new DnsMessage(7, Dns.FLAG_QR | Dns.FLAG_RD | Dns.FLAG_RA | Dns.RCODE_NOERROR,
                List.of(new Question("www.example.test", Dns.TYPE_A, Dns.CLASS_IN)),
                List.of(ResourceRecord.cname("www.example.test", 60, "web.example.test"),
                        ResourceRecord.a("web.example.test", 60, InetAddress.ofLiteral("192.0.2.7")),
                        new ResourceRecord("web.example.test", Dns.TYPE_AAAA, Dns.CLASS_IN, 0xFFFFFFFFL,
                                InetAddress.ofLiteral("2001:db8::7"), null)),
                List.of(ResourceRecord.ptr("7.2.0.192.in-addr.arpa", 1, "web.example.test")),
                List.of());
        byte[] b = m.encode();
        assertThat(b).hasSize(m.length());
        assertThat(DnsMessage.parse(b, 0, b.length)).isEqualTo(m);
    }

    @Test
    void recordsOfOtherTypesAreSkippedByRdlength() throws Exception {
        // header: 1 question, 2 answers: a TXT record (skipped) then an A record
        String hex = "0001" + "8180" + "0001" + "0002" + "0000" + "0000"
                + "0161" + "00" + "0001" + "0001"
                + "c00c" + "0010" + "0001" + "00000001" + "0006" + "0568656c6c6f"
                + "c00c" + "0001" + "0001" + "00000001" + "0004" + "c0000201";
        byte[] b = HexFormat.of().parseHex(hex);
        DnsMessage m = DnsMessage.parse(b, 0, b.length);
        assertThat(m.answers()).containsExactly(ResourceRecord.a("a", 1, InetAddress.ofLiteral("192.0.2.1")));
    }

    @Test
    void compressionPointersThatLoopOrPointForwardAreRefused() {
        // question name is a pointer to itself
        byte[] self = HexFormat.of().parseHex("0001" + "0100" + "0001" + "000000000000" + "c00c" + "00010001");
        assertReason(self, MalformedPacketException.Reason.BAD_NAME, "not a prior occurrence");
        // a label, then a pointer back to that label: a loop through an earlier offset
        byte[] loop = HexFormat.of().parseHex("0001" + "0100" + "0001" + "000000000000" + "0161" + "c00c" + "00010001");
        assertReason(loop, MalformedPacketException.Reason.BAD_NAME, "not a prior occurrence");
        // a forward pointer
        byte[] forward = HexFormat.of().parseHex("0001" + "0100" + "0001" + "000000000000" + "c010" + "00010001" + "00");
        assertReason(forward, MalformedPacketException.Reason.BAD_NAME, "not a prior occurrence");
        // a pointer in an answer to the question's name is fine; one past the end is not
        byte[] past = HexFormat.of().parseHex("0001" + "8100" + "0000" + "0001" + "00000000" + "c0ff" + "0001000100000001" + "0004c0000201");
        assertReason(past, MalformedPacketException.Reason.BAD_NAME, "not a prior occurrence");
        // reserved label types 01 and 10
        byte[] ext = HexFormat.of().parseHex("0001" + "0100" + "0001" + "000000000000" + "4100" + "00010001");
        assertReason(ext, MalformedPacketException.Reason.BAD_NAME, "label type 0x40");
    }

    @Test
    void labelsOver63AndNamesOver255AreRefused() {
        // a 64-byte label reads as label type 01
        StringBuilder hex = new StringBuilder("0001" + "0100" + "0001" + "000000000000");
        // 5 labels of 63 bytes: 320 bytes of name
        for (int i = 0; i < 5; i++) hex.append("3f").append("61".repeat(63));
        hex.append("00").append("00010001");
        byte[] b = HexFormat.of().parseHex(hex);
        assertReason(b, MalformedPacketException.Reason.BAD_NAME, "longer than 255");

        assertThatThrownBy(() -> Dns.checkName("a".repeat(64) + ".test")).hasMessageContaining("longer than 63");
        assertThatThrownBy(() -> Dns.checkName(("a".repeat(63) + ".").repeat(4) + "b")).hasMessageContaining("longer than 255");
        assertThatThrownBy(() -> Dns.checkName("a..b")).hasMessageContaining("empty label");
        assertThatThrownBy(() -> Dns.checkName("a b")).hasMessageContaining("U+0020");
        // the longest name that fits: 3 labels of 63 and one of 61 = 253 characters, 255 bytes
        String longest = ("a".repeat(63) + ".").repeat(3) + "b".repeat(61);
        assertThat(Dns.nameLength(longest)).isEqualTo(255);
    }

    @Test
    void rdlengthsMustFitTheirType() {
        byte[] shortA = HexFormat.of().parseHex("0001" + "8100" + "0000" + "0001" + "00000000" + "00" + "0001000100000001" + "0003c00002");
        assertReason(shortA, MalformedPacketException.Reason.BAD_LENGTH, "RDLENGTH 3, not 4");
        byte[] pastEnd = HexFormat.of().parseHex("0001" + "8100" + "0000" + "0001" + "00000000" + "00" + "0010000100000001" + "0009c0000201");
        assertReason(pastEnd, MalformedPacketException.Reason.TRUNCATED, "runs past the message");
        // a CNAME whose name ends before its RDLENGTH does
        byte[] slack = HexFormat.of().parseHex("0001" + "8100" + "0000" + "0001" + "00000000" + "00" + "0005000100000001" + "0004" + "01610000");
        assertReason(slack, MalformedPacketException.Reason.BAD_LENGTH, "holding a name of 3 bytes");
    }

    @Test
    void oddBytesInLabelsAreEscapedAsGlibcDoes() throws Exception {
        byte[] b = HexFormat.of().parseHex("0001" + "0100" + "0001" + "000000000000" + "04612e5c20" + "00" + "00010001");
        assertThat(DnsMessage.parse(b, 0, b.length).questions().get(0).name()).isEqualTo("a\\046\\092\\032");
    }

    private static void assertReason(byte[] b, MalformedPacketException.Reason reason, String detail) {
        MalformedPacketException e = catchThrowableOfType(MalformedPacketException.class, () -> DnsMessage.parse(b, 0, b.length));
        assertThat(e).as("parse of %s", HexFormat.of().formatHex(b)).isNotNull();
        assertThat(e.reason()).isEqualTo(reason);
        assertThat(e.getMessage()).contains(detail);
    }
}
