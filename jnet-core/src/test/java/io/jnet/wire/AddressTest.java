package io.jnet.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressTest {

    @Test
    void parsesDottedQuads() {
        assertThat(Ipv4.parseAddress("0.0.0.0")).isZero();
        assertThat(Ipv4.parseAddress("255.255.255.255")).isEqualTo(-1);
        assertThat(Ipv4.parseAddress("192.0.2.1")).isEqualTo(0xC0000201);
        assertThat(Ipv4.parseAddress("128.0.0.0")).isEqualTo(Integer.MIN_VALUE);
        assertThat(Ipv4.parseAddress(" 10.0.0.1\n")).isEqualTo(0x0A000001);
        assertThat(Ipv4.parseAddress("10.0.0.100")).isEqualTo(0x0A000064);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "1.2.3", "1.2.3.4.5", "1..3.4", "1.2.3.4.", ".1.2.3", "256.1.1.1", "1.2.3.-4",
        "1.2.3.+4", "01.2.3.4", "1.2.3.00", "1.2.3.0x4", "a.b.c.d", "1234.1.1.1", "1.2.3.\u0664", "1.2.3.4/24",
        "1,2,3,4", "::1"})
    void rejectsMalformedAddresses(String s) {
        assertThatThrownBy(() -> Ipv4.parseAddress(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad IPv4 address");
    }

    @Test
    void rejectsNullAddress() {
        assertThatThrownBy(() -> Ipv4.parseAddress(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void addressToStringRoundTrips() {
        assertThat(Ipv4.addressToString(0)).isEqualTo("0.0.0.0");
        assertThat(Ipv4.addressToString(-1)).isEqualTo("255.255.255.255");
        assertThat(Ipv4.addressToString(0xC0000201)).isEqualTo("192.0.2.1");
        assertThat(Ipv4.addressToString(0x80FF0001)).isEqualTo("128.255.0.1");
        Random r = new Random(791);
        for (int i = 0; i < 10_000; i++) {
            int a = r.nextInt();
            assertThat(Ipv4.parseAddress(Ipv4.addressToString(a))).isEqualTo(a);
            assertThat(Ipv4.fromInet(Ipv4.toInet(a))).isEqualTo(a);
        }
    }

    @Test
    void prefixMasks() {
        assertThat(Ipv4.prefixMask(0)).isZero();
        assertThat(Ipv4.prefixMask(1)).isEqualTo(0x80000000);
        assertThat(Ipv4.prefixMask(8)).isEqualTo(0xFF000000);
        assertThat(Ipv4.prefixMask(24)).isEqualTo(0xFFFFFF00);
        assertThat(Ipv4.prefixMask(31)).isEqualTo(0xFFFFFFFE);
        assertThat(Ipv4.prefixMask(32)).isEqualTo(-1);
        for (int p = 0; p <= 32; p++) assertThat(Integer.bitCount(Ipv4.prefixMask(p))).isEqualTo(p);
        assertThatThrownBy(() -> Ipv4.prefixMask(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ipv4.prefixMask(33)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void addressClasses() {
        assertThat(Ipv4.isMulticast(Ipv4.parseAddress("224.0.0.1"))).isTrue();
        assertThat(Ipv4.isMulticast(Ipv4.parseAddress("239.255.255.255"))).isTrue();
        assertThat(Ipv4.isMulticast(Ipv4.parseAddress("240.0.0.1"))).isFalse();
        assertThat(Ipv4.isLoopback(Ipv4.parseAddress("127.1.2.3"))).isTrue();
        assertThat(Ipv4.isLoopback(Ipv4.parseAddress("128.0.0.1"))).isFalse();
    }

    @Test
    void macAddresses() {
        assertThat(Ethernet.parseMac("ff:ff:ff:ff:ff:ff")).isEqualTo(Ethernet.BROADCAST);
        assertThat(Ethernet.parseMac("5A:22:d5:F1:c6:e8")).isEqualTo(0x5A22D5F1C6E8L);
        assertThat(Ethernet.parseMac("0:1:2:a:b:c")).isEqualTo(0x0001020A0B0CL);
        assertThat(Ethernet.macToString(0x5A22D5F1C6E8L)).isEqualTo("5a:22:d5:f1:c6:e8");
        assertThat(Ethernet.macToString(0)).isEqualTo("00:00:00:00:00:00");
        assertThat(Ethernet.isMulticast(Ethernet.BROADCAST)).isTrue();
        assertThat(Ethernet.isMulticast(Ethernet.parseMac("33:33:00:00:00:16"))).isTrue();
        assertThat(Ethernet.isMulticast(Ethernet.parseMac("5a:22:d5:f1:c6:e8"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "aa:bb:cc:dd:ee", "aa:bb:cc:dd:ee:ff:", "aa:bb:cc:dd:ee:ff:00", "aa:bb:cc:dd:ee:fg",
        "+a:bb:cc:dd:ee:ff", "-0:bb:cc:dd:ee:ff", "aaa:bb:cc:dd:ee:ff", "aa::cc:dd:ee:ff", "aa-bb-cc-dd-ee-ff",
        "aa:bb:cc:dd:ee:\u0661"})
    void rejectsMalformedMacs(String s) {
        assertThatThrownBy(() -> Ethernet.parseMac(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad MAC address");
    }

    @Test
    void tcpFlagsPrintLikeTcpdump() {
        assertThat(Tcp.flagsToString(Tcp.SYN)).isEqualTo("S");
        assertThat(Tcp.flagsToString(Tcp.SYN | Tcp.ACK)).isEqualTo("S.");
        assertThat(Tcp.flagsToString(Tcp.FIN | Tcp.PSH | Tcp.ACK)).isEqualTo("FP.");
        assertThat(Tcp.flagsToString(Tcp.SYN | Tcp.ECE | Tcp.CWR)).isEqualTo("SEW");
    }
}
