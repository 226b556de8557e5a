package io.jnet.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.drill.jnet.JnetTarget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A script's own problem is reported at its line (FAIL, or unsupported for a runner limit) and the run goes on. */
class DrillRobustnessTest {
    static final String HANDSHAKE = """
            0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
            +0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
            +0 bind(3, ..., ...) = 0
            +0 listen(3, 1) = 0
            +0 < S 0:0(0) win 65535 <mss 1460>
            +0 > S. 0:0(0) ack 1 <mss 1460>
            +.1 < . 1:1(0) ack 1 win 514
            +0 accept(3, ..., ...) = 4
            """;

    @TempDir
    Path dir;

    record Run(List<Drill.Result> results, String text) {
        Drill.Result only() { return results.getFirst(); }
    }

    Run run(Path... scripts) throws Exception {
        Inet4Address local = v4("192.168.0.1"), remote = v4("192.0.2.1"), gateway = v4("192.168.0.2");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Drill.Result> results = Drill.run(ScriptFiles.collect(List.of(scripts)), () -> new JnetTarget(local, remote, gateway, 1500),
                new Drill.Settings(1, Map.of(), 4000, false), new PrintStream(out, true, StandardCharsets.UTF_8));
        return new Run(results, out.toString(StandardCharsets.UTF_8));
    }

    Path script(String name, String text) throws Exception { return Files.writeString(dir.resolve(name), text); }

    @Test
    void aScriptThatIsNotUtf8IsReadAsBytesAndTheRunGoesOn() throws Exception {
        byte[] latin1 = ("// caf\u00e9\n" + HANDSHAKE).getBytes(StandardCharsets.ISO_8859_1);
        Path a = Files.write(dir.resolve("a-latin1.pkt"), latin1);
        byte[] random = new byte[300];
        new java.util.Random(7).nextBytes(random);
        Path b = Files.write(dir.resolve("b-random.pkt"), random);
        Path c = script("c-after.pkt", HANDSHAKE);
        Run r = run(a, b, c);
        assertThat(r.results()).extracting(Drill.Result::outcome)
                .containsExactly(Drill.Outcome.PASS, Drill.Outcome.FAIL, Drill.Outcome.PASS);
        assertThat(r.text()).contains("FAIL        " + b + ":").contains("scripts 3, passed 2, failed 1");
    }

    @Test
    void aByteOrderMarkIsSkipped() throws Exception {
        byte[] text = HANDSHAKE.getBytes(StandardCharsets.UTF_8);
        byte[] bom = new byte[text.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(text, 0, bom, 3, text.length);
        assertThat(run(Files.write(dir.resolve("bom.pkt"), bom)).only().outcome()).isEqualTo(Drill.Outcome.PASS);
    }

    @Test
    void aParseErrorNamesFileAndLineOnce() throws Exception {
        Path p = script("bad.pkt", "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1 = 0\n");
        Run r = run(p);
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.FAIL);
        String line = r.text().lines().findFirst().orElseThrow();
        assertThat(line).startsWith("FAIL        " + p + ":2: parse error: ");
        assertThat(line.indexOf(p.toString())).isEqualTo(line.lastIndexOf(p.toString()));
    }

    @Test
    void aNegativeIovLengthOrCountFailsWithEinvalAsOnLinux() throws Exception {
        Path w = script("writev.pkt", HANDSHAKE + "+0 writev(4, [{..., 10}, {..., -3}], 2) = -1 EINVAL\n");
        Path rd = script("read.pkt", HANDSHAKE + "+0 read(4, ..., -5) = -1 EINVAL\n");
        Path rv = script("readv.pkt", HANDSHAKE + "+0 readv(4, [{..., 10}, {..., -3}], 2) = -1 EINVAL\n");
        assertThat(run(w, rd, rv).results()).extracting(Drill.Result::outcome)
                .containsExactly(Drill.Outcome.PASS, Drill.Outcome.PASS, Drill.Outcome.PASS);
    }

    @Test
    void aPortOutOfRangeIsTheScriptsMistakeAtItsLine() throws Exception {
        Path p = script("bind.pkt", """
                0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 bind(3, {sa_family=AF_INET, sin_port=htons(70000), sin_addr=inet_addr("192.168.0.1")}, 16) = 0
                """);
        Run r = run(p);
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.FAIL);
        assertThat(r.text()).contains("bind.pkt:2: htons(70000): out of range").doesNotContain("could not open the target");
    }

    @Test
    void anUnknownTcpInfoFieldIsUnsupported() throws Exception {
        Run r = run(script("tcpi.pkt", HANDSHAKE + "+0 %{ assert tcpi_frobnicate == 3 }%\n"));
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.UNSUPPORTED);
        assertThat(r.text()).contains("tcpi.pkt:9: ").contains("tcpi_frobnicate");
    }

    @Test
    void aMalformedToleranceInTheScriptIsAFailAtItsLine() throws Exception {
        Run r = run(script("tol.pkt", "--tolerance_usecs=abc\n" + HANDSHAKE), script("tol2.pkt", "--tolerance_usecs=-5\n" + HANDSHAKE));
        assertThat(r.results()).extracting(Drill.Result::outcome).containsExactly(Drill.Outcome.FAIL, Drill.Outcome.FAIL);
        assertThat(r.text()).contains("tol.pkt:1: --tolerance_usecs=abc is not a number").contains("tol2.pkt:1: --tolerance_usecs=-5 is out of range");
    }

    @Test
    void absoluteTimesGoingBackwardsAreAScriptError() throws Exception {
        Run r = run(script("back.pkt", HANDSHAKE + "0.5 write(4, ..., 10) = 10\n0.1 < . 1:1(0) ack 11 win 514\n"));
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.FAIL);
        assertThat(r.text()).contains("back.pkt:10: time goes backwards");
    }

    @Test
    void anExpectedFailureShowsTheActualMismatchAndTheListedReason() throws Exception {
        Path p = script("x.pkt", "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = -1 EINVAL\n");
        Files.writeString(dir.resolve(ScriptFiles.EXPECTED_FAILURES), "x.pkt  jnet lacks something\n");
        Run r = run(p);
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.EXPECTED_FAILURE);
        assertThat(r.text()).contains("xfail       " + p + ":2: listen(3, 1) = 0, expected -1 EINVAL (listed: jnet lacks something)");
    }

    @Test
    void aDirectoryWithoutScriptsOrADanglingLinkIsAnError() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScriptFiles.collect(List.of(empty)))
                .hasMessageContaining("no scripts found under " + empty);
        Path d = Files.createDirectory(dir.resolve("d"));
        Files.createSymbolicLink(d.resolve("gone.pkt"), d.resolve("missing.pkt"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScriptFiles.collect(List.of(d))).hasMessageContaining("gone.pkt");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScriptFiles.collect(List.of(d.resolve("gone.pkt"))))
                .hasMessageContaining("dangling");
    }

    @Test
    void constructsThatCouldDecideAResultAreUnsupported() throws Exception {
        Path cmsg = script("cmsg.pkt", HANDSHAKE + "+0 < P. 1:11(10) ack 1 win 514\n+0 > . 1:1(0) ack 11\n"
                + "+0 recvmsg(4, {msg_name(...)=..., msg_iov(1)=[{..., 100}], msg_control(24)=[{cmsg_level=SOL_SOCKET, cmsg_type=SO_TIMESTAMP, cmsg_data=0}], msg_flags=0}, 0) = 10\n");
        Path opt = script("opt.pkt", "--frobnicate=1\n" + HANDSHAKE);
        Path percent = script("percent.pkt", "--tolerance_percent=10\n" + HANDSHAKE);
        Path v6 = script("v6.pkt", "0 socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP) = 3\n");
        Path fionbio = script("fionbio.pkt", HANDSHAKE + "+0 ioctl(4, FIONBIO, [1]) = 0\n");
        Path second = script("second.pkt", """
                0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
                +0 connect(3, ..., ...) = -1 EINPROGRESS
                +0 > S 0:0(0) <...>
                +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 4
                +0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0
                +0 connect(4, ..., ...) = -1 EINPROGRESS
                +0 > S 0:0(0) <...>
                """);
        Path epoll = script("epoll.pkt", """
                0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 epoll_create(1) = 4
                +0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLIN, fd=3}) = 0
                """);
        Run r = run(cmsg, opt, percent, v6, fionbio, second, epoll);
        assertThat(r.results()).extracting(Drill.Result::outcome).containsOnly(Drill.Outcome.UNSUPPORTED);
        assertThat(r.text()).contains("cmsg.pkt:11: recvmsg with control messages")
                .contains("opt.pkt:1: --frobnicate").contains("percent.pkt:1: --tolerance_percent")
                .contains("v6.pkt:1: socket(AF_INET6").contains("fionbio.pkt:9: ioctl FIONBIO")
                .contains("second.pkt:8: a second connection (one connection per script)")
                .contains("epoll.pkt:3: ").contains("neither connected nor listened")
                .contains("unsupported 7");
    }

    @Test
    void tosAndTtlOnAnOutboundLineAreCompared() throws Exception {
        String synAck = "+0 > S. 0:0(0) ack 1 <mss 1460>\n";
        String base = HANDSHAKE.replace(synAck, "%s");
        assertThat(HANDSHAKE).contains(synAck);
        Path tos = script("tos.pkt", base.formatted("+0 > [tos 0x10] S. 0:0(0) ack 1 <mss 1460>\n"));
        Path ttl = script("ttl.pkt", base.formatted("+0 > [ttl 3] S. 0:0(0) ack 1 <mss 1460>\n"));
        Path ok = script("ok.pkt", base.formatted("+0 > [tos 0x0] S. 0:0(0) ack 1 <mss 1460>\n"));
        Run r = run(ok, tos, ttl);
        assertThat(r.results()).extracting(Drill.Result::outcome)
                .containsExactly(Drill.Outcome.PASS, Drill.Outcome.FAIL, Drill.Outcome.FAIL);
        assertThat(r.text()).contains("TOS 0x0, expected 0x10").contains("expected 3");
    }

    @Test
    void anUnexpectedPacketLongBeforeTheNextExpectedOneIsCalledUnexpected() throws Exception {
        Run r = run(script("rto.pkt", HANDSHAKE + "+0 write(4, ..., 100) = 100\n+0 > P. 1:101(100) ack 1\n+5 > F. 101:101(0) ack 1\n"));
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.FAIL);
        assertThat(r.text()).contains("rto.pkt:11: unexpected packet P. 1:101(100) ack 1")
                .contains("(the next expected, at line 11, is > F. 101:101(0) ack 1 at 5.").doesNotContain("early");
    }

    @Test
    void verbosePrintsEveryPieceOfAnExpectedSegment() throws Exception {
        Path p = script("pieces.pkt", HANDSHAKE.replace("ack 1 win 514", "ack 1 win 65535") + "+0 write(4, ..., 3000) = 3000\n+0 > P. 1:3001(3000) ack 1\n");
        Inet4Address local = v4("192.168.0.1"), remote = v4("192.0.2.1"), gateway = v4("192.168.0.2");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Drill.Result> results = Drill.run(ScriptFiles.collect(List.of(p)), () -> new JnetTarget(local, remote, gateway, 1500),
                new Drill.Settings(1, Map.of(), 4000, true), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(results.getFirst().outcome()).isEqualTo(Drill.Outcome.PASS);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().filter(l -> l.contains(" sent ") && l.contains("(a piece)")).count()).isEqualTo(2);
        assertThat(text).contains(" 1:1461(1460) ack 1").contains(" 1461:2921(1460) ack 1").contains("sent P. 2921:3001(80) ack 1");
    }

    @Test
    void aStatementCutShortByTheEndOfTheFileIsReportedAtItsLine() throws Exception {
        Run r = run(script("cut.pkt", "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3,"));
        assertThat(r.only().outcome()).isEqualTo(Drill.Outcome.FAIL);
        assertThat(r.text()).contains("cut.pkt:2: parse error: ");
    }

    @Test
    void theExpectedFailuresListOfASubfolderApplies() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("suite/sub"));
        Path p = Files.writeString(sub.resolve("x.pkt"), "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = -1 EINVAL\n");
        Files.writeString(sub.resolve(ScriptFiles.EXPECTED_FAILURES), "x.pkt  listed in the subfolder\n");
        ScriptFiles files = ScriptFiles.collect(List.of(dir.resolve("suite")));
        assertThat(files.expectedFailure(p)).isEqualTo("listed in the subfolder");
    }

    static Inet4Address v4(String s) throws Exception { return (Inet4Address) InetAddress.getByName(s); }

    @Test
    void htonsIsRangeCheckedAndInNetworkOrderAndGetsockoptsOptlenIsCompared() throws Exception {
        Path big = script("htons-big.pkt", HANDSHAKE + "+0 setsockopt(4, SOL_SOCKET, SO_RCVBUF, [htons(70000)], 4) = 0\n");
        // htons(0x1000) is 0x0010 in network order: 16 bytes asked, the floor (SOCK_MIN_RCVBUF, 2304 as on Linux) comes back
        Path order = script("htons-order.pkt", HANDSHAKE
                + "+0 setsockopt(4, SOL_SOCKET, SO_RCVBUF, [htons(4096)], 4) = 0\n"
                + "+0 getsockopt(4, SOL_SOCKET, SO_RCVBUF, [2304], [4]) = 0\n");
        Path optlen = script("optlen.pkt", HANDSHAKE + "+0 getsockopt(4, SOL_SOCKET, SO_TYPE, [SOCK_STREAM], [8]) = 0\n");
        Run r = run(big, order, optlen);
        assertThat(r.results()).extracting(Drill.Result::outcome)
                .containsExactly(Drill.Outcome.FAIL, Drill.Outcome.PASS, Drill.Outcome.FAIL);
        assertThat(r.text()).contains("htons-big.pkt:9: htons(70000): out of range (0 to 65535)")
                .contains("optlen.pkt:9:").contains("optlen 4, expected 8");
    }

    @Test
    void anExpectedFailuresListIsReadAsScriptsAreAndMalformedEntriesAreRefused() throws Exception {
        Path s = script("fails.pkt", HANDSHAKE + "+0 close(4) = -1 EBADF (Bad file descriptor)\n");
        byte[] bom = "\uFEFFfails.pkt  caf\u00e9 reason\n".getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve(ScriptFiles.EXPECTED_FAILURES), bom);
        assertThat(run(s).only().outcome()).isEqualTo(Drill.Outcome.EXPECTED_FAILURE);
        Files.write(dir.resolve(ScriptFiles.EXPECTED_FAILURES), "fails.pkt  caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(run(s).only().outcome()).isEqualTo(Drill.Outcome.EXPECTED_FAILURE);
        for (String bad : List.of("fails.pkt  one\nfails.pkt  two\n", "../fails.pkt  outside\n", s + "  absolute\n")) {
            Files.writeString(dir.resolve(ScriptFiles.EXPECTED_FAILURES), bad);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScriptFiles.collect(List.of(s)))
                    .isInstanceOf(java.io.IOException.class).hasMessageContaining(ScriptFiles.EXPECTED_FAILURES + ":");
        }
    }
}
