package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HttpUrlTest {

    @ParameterizedTest
    @CsvSource({
        "http://10.0.0.1/bytes/5,          10.0.0.1,    80,   /bytes/5,   http://10.0.0.1/bytes/5",
        "http://10.0.0.1,                  10.0.0.1,    80,   /,          http://10.0.0.1/",
        "HTTP://Host.Example:8080?q=1#f,   host.example, 8080, /?q=1,     http://host.example:8080/?q=1",
        "http://10.0.0.1:80/a#b,           10.0.0.1,    80,   /a,         http://10.0.0.1/a",
        "http://10.0.0.1:/a,               10.0.0.1,    80,   /a,         http://10.0.0.1/a",
        "http://[fe80::1]:8000/x,          fe80::1,     8000, /x,         http://[fe80::1]:8000/x",
    })
    void parses(String url, String host, int port, String target, String normalized) {
        HttpUrl parsed = HttpUrl.parse(url);
        assertThat(parsed.host()).isEqualTo(host);
        assertThat(parsed.port()).isEqualTo(port);
        assertThat(parsed.target()).isEqualTo(target);
        assertThat(parsed.toString()).isEqualTo(normalized);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ftp://10.0.0.1/          | only the http scheme",
        "https://10.0.0.1/        | https is not supported",
        "10.0.0.1/x               | expected http://",
        "http:///path             | no host",
        "http://user@10.0.0.1/    | user information",
        "http://10.0.0.1:99999/   | port out of range",
        "http://10.0.0.1:0/       | port out of range",
        "http://10.0.0.1:8a/      | bad port",
        "http://10.0.0.1/a b      | percent-encoded",
        "http://[fe80::1/         | unterminated IPv6",
        "http://ho$t/             | bad host name",
    })
    void rejects(String url, String message) {
        assertThatThrownBy(() -> HttpUrl.parse(url.strip())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message).hasMessageContaining("bad URL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.256", "10.0.0", "10.0.0.01", "1.2.3.4.5", "0x7f.0.0.1", "localhost", "10..0.1"})
    void literalResolverRejectsNamesAndSloppyLiterals(String host) {
        assertThatThrownBy(() -> HostResolver.literalsOnly().resolve(host)).isInstanceOf(UnknownHostException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "0.0.0.0", "255.255.255.255", "192.168.100.200", "::1", "fe80::1"})
    void literalResolverAcceptsLiterals(String host) throws UnknownHostException {
        InetAddress address = HostResolver.literalsOnly().resolve(host);
        assertThat(address).isEqualTo(InetAddress.ofLiteral(host));
    }
}
