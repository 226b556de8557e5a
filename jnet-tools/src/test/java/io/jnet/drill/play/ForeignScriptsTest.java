package io.jnet.drill.play;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.drill.jnet.JnetTarget;
import io.jnet.drill.script.DrillParser;
import io.jnet.drill.script.Script;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Scripts written for packetdrill on Linux, played unmodified on jnet: whatever they use, each ends in a verdict
 * (never an exception out of the player), and a construct the player cannot play is reported unsupported, never
 * passed.
 */
class ForeignScriptsTest {
    static Verdict play(String name, String text) throws Exception {
        Script s = DrillParser.parse(name, text);
        try (JnetTarget t = new JnetTarget(v4("192.168.0.1"), v4("192.0.2.1"), v4("192.168.0.2"), 1500)) {
            return Player.play(s, t, Player.Options.defaults());
        }
    }

    static Inet4Address v4(String s) throws Exception { return (Inet4Address) InetAddress.getByName(s); }

    @Test
    void everyScriptOfTheParsersCorpusEndsInAVerdict() throws Exception {
        Path corpus = Path.of(ForeignScriptsTest.class.getResource("/io/jnet/drill/script/corpus").toURI());
        List<Path> scripts;
        try (Stream<Path> s = Files.list(corpus)) {
            scripts = s.filter(p -> p.toString().endsWith(".pkt")).sorted().toList();
        }
        assertThat(scripts).hasSizeGreaterThan(10);
        for (Path p : scripts) {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            Verdict v = play(p.getFileName().toString(), text);
            assertThat(v).as(p.toString()).isNotNull();
            if (v.status() == Verdict.Status.UNSUPPORTED) assertThat(v.message()).as(p.toString()).isNotBlank();
        }
    }

    @Test
    void constructsThePlayerCannotPlayAreReportedUnsupported() throws Exception {
        String open = """
                0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 bind(3, ..., ...) = 0
                +0 listen(3, 1) = 0
                """;
        for (String[] c : new String[][] {
                {"--ip_version=ipv6\n" + open, "ip_version"},
                {open + "+0 < udp (100)\n", "UDP"},
                {open + "+0 %{ print(tcpi_rto) }%\n", "print"},
                {open + "+0 sendfile(3, 4, NULL, 100) = 100\n", "sendfile"},
                {open + "+0 `tc qdisc add dev tun0 root fq`\n", "tc qdisc"},
                {open + "+0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [NO_SUCH_SYMBOL], 4) = 0\n", "NO_SUCH_SYMBOL"},
                // runner limits met while playing, not when preparing a line: unsupported too, never a failure
                {"0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < S 0:0(0) win 1000\n", "ports are known"},
                {open + "+0 getsockopt(3, SOL_SOCKET, SO_REUSEADDR, [NO_SUCH_OUTPUT], [4]) = 0\n", "NO_SUCH_OUTPUT"},
                {open + "+0 listen(3, 1) = NO_SUCH_RESULT\n", "NO_SUCH_RESULT"},
                {open + "+0 getsockopt(3, SOL_TCP, TCP_INFO, {tcpi_no_such_field=1}, [...]) = 0\n", "tcpi_no_such_field"},
                {open + "+0 %{ assert tcpi_no_such_field == 1 }%\n", "tcpi_no_such_field"}}) {
            Verdict v = play("foreign.pkt", c[0]);
            assertThat(v.status()).as(c[0]).isEqualTo(Verdict.Status.UNSUPPORTED);
            assertThat(v.message()).as(c[0]).contains(c[1]);
        }
    }
}
