package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** resolv.conf(5) text read with glibc's defaults, limits and leniency. */
class ResolvConfTest {

    @Test
    void defaultsAreGlibcs() {
        ResolvConf c = ResolvConf.parse("");
        assertThat(c.nameservers()).isEmpty();
        assertThat(c.search()).isEmpty();
        assertThat(c.ndots()).isEqualTo(1);
        assertThat(c.timeoutSeconds()).isEqualTo(5);
        assertThat(c.attempts()).isEqualTo(2);
        assertThat(c.rotate()).isFalse();
        assertThat(c).isEqualTo(ResolvConf.EMPTY);
    }

    @Test
    void aTypicalFile() {
        ResolvConf c = ResolvConf.parse("""
                # generated
                ; also a comment
                domain old.test
                search example.test. corp.test
                nameserver 192.0.2.1
                nameserver\t192.0.2.2
                options ndots:2 timeout:3 attempts:4 rotate
                """);
        assertThat(c.nameservers()).extracting(InetAddress::getHostAddress).containsExactly("192.0.2.1", "192.0.2.2");
        assertThat(c.search()).as("the last of domain/search wins; a trailing dot dropped").containsExactly("example.test", "corp.test");
        assertThat(c.ndots()).isEqualTo(2);
        assertThat(c.timeout()).hasSeconds(3);
        assertThat(c.attempts()).isEqualTo(4);
        assertThat(c.rotate()).isTrue();
        assertThat(c.ignored()).isEmpty();
        assertThat(ResolvConf.parse(c.toText())).isEqualTo(c);
        assertThat(ResolvConf.parse("search a.test\ndomain b.test\n").search()).containsExactly("b.test");
    }

    @Test
    void linesGlibcIgnoresAreLeftOutAndListed() {
        ResolvConf c = ResolvConf.parse("""
                nameserver 192.0.2.1
                nameserver 2001:db8::1
                nameserver not-an-address
                nameserver 192.0.2.2
                nameserver 192.0.2.3
                nameserver 192.0.2.4
                nameserver
                sortlist 192.0.2.0/255.255.255.0
                options ndots:99 timeout:100 attempts:9 edns0 ndots:x
                """);
        assertThat(c.nameservers()).extracting(InetAddress::getHostAddress).containsExactly("192.0.2.1", "192.0.2.2", "192.0.2.3");
        assertThat(c.ignored()).extracting(IgnoredLine::number, IgnoredLine::reason).containsExactly(
                org.assertj.core.groups.Tuple.tuple(2, "IPv6 name server (jnet has no IPv6 yet)"),
                org.assertj.core.groups.Tuple.tuple(3, "not an address: not-an-address"),
                org.assertj.core.groups.Tuple.tuple(6, "more than 3 name servers (MAXNS)"),
                org.assertj.core.groups.Tuple.tuple(7, "nameserver without an address"),
                org.assertj.core.groups.Tuple.tuple(8, "keyword not supported: sortlist"),
                org.assertj.core.groups.Tuple.tuple(9, "option not supported: edns0"),
                org.assertj.core.groups.Tuple.tuple(9, "value of ndots:x is not a number: read as 0, as glibc's atoi"));
        assertThat(c.ndots()).as("ndots:x after ndots:99 reads as 0").isZero();
        assertThat(c.timeoutSeconds()).as("capped at RES_MAXRETRANS").isEqualTo(30);
        assertThat(c.attempts()).as("capped at RES_MAXRETRY").isEqualTo(5);
        assertThat(ResolvConf.parse("options ndots:99").ndots()).isEqualTo(15);
        assertThat(ResolvConf.parse("options timeout:0 attempts:0")).extracting(ResolvConf::timeoutSeconds, ResolvConf::attempts)
                .containsExactly(1, 1);
    }

    @Test
    void valuesOutsideTheLimitsAreRefusedInCode() {
        assertThatThrownBy(() -> ResolvConf.EMPTY.withTimeout(0)).hasMessageContaining("timeout");
        assertThatThrownBy(() -> ResolvConf.ofNameservers("192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"))
                .hasMessageContaining("more than 3");
        assertThatThrownBy(() -> ResolvConf.EMPTY.withNdots(16)).hasMessageContaining("ndots");
    }
}
