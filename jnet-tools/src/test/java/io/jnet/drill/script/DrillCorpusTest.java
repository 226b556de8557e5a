package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The scripts in the test resources' corpus all parse, render back stably, and together use every construct. */
class DrillCorpusTest {

    static List<Path> corpus() throws IOException, URISyntaxException {
        Path dir = Path.of(DrillCorpusTest.class.getResource("corpus").toURI());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".pkt")).sorted().toList();
        }
    }

    static Script parse(Path p) throws IOException, DrillParseException {
        return DrillParser.parse(p.getFileName().toString(), Files.readString(p));
    }

    @Test
    void theCorpusHasAtLeastFifteenScripts() throws Exception {
        assertThat(corpus()).hasSizeGreaterThanOrEqualTo(15);
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void parsesAndRendersStably(Path script) throws Exception {
        Script s = parse(script);
        assertThat(s.events()).isNotEmpty();
        String rendered = s.render();
        assertThat(DrillParser.parse("rendered", rendered).render()).isEqualTo(rendered);
    }

    @Test
    void everyConstructAppears() throws Exception {
        Set<Class<?>> seen = new HashSet<>();
        Set<String> seenMore = new HashSet<>();
        for (Path p : corpus()) {
            Script s = parse(p);
            if (!s.options().isEmpty()) seenMore.add("option");
            if (s.initCommand().isPresent()) seenMore.add("init");
            if (s.cleanupCommand().isPresent()) seenMore.add("cleanup");
            if (s.options().stream().anyMatch(o -> o.name().equals("define"))) seenMore.add("define");
            for (Event e : s.events()) {
                seen.add(e.time().getClass());
                seen.add(e.action().getClass());
                switch (e.action()) {
                    case TcpPacket t -> {
                        t.options().forEach(o -> seen.add(o.getClass()));
                        if (t.anyOptions()) seenMore.add("<...>");
                        if (t.ports().isPresent()) seenMore.add("ports");
                        if (!t.encapsulation().isEmpty()) seenMore.add("ipv4 encapsulation");
                        if (t.urgentPointer().isPresent()) seenMore.add("urg");
                        if (t.flags().isEmpty()) seenMore.add("no flags");
                        t.ip().flatMap(IpInfo::ecn).ifPresent(x -> seenMore.add("ecn " + x));
                        t.ip().ifPresent(i -> {
                            if (i.tos().isPresent()) seenMore.add("tos");
                            if (i.flowLabel().isPresent()) seenMore.add("flowlabel");
                            if (i.ttl().isPresent()) seenMore.add("ttl");
                        });
                    }
                    case IcmpPacket i -> i.quoted().ifPresent(q -> seen.add(q.getClass()));
                    case Syscall c -> {
                        if (c.blockingEndMicros().isPresent()) seenMore.add("blocking");
                        if (c.errno().isPresent()) seenMore.add("errno");
                        if (c.note().isPresent()) seenMore.add("note");
                        c.arguments().forEach(a -> collect(a, seen));
                        collect(c.result(), seen);
                    }
                    default -> { }
                }
            }
        }
        assertThat(seen).contains(EventTime.Absolute.class, EventTime.Relative.class, EventTime.Any.class,
            EventTime.AbsoluteRange.class, EventTime.RelativeRange.class, TcpPacket.class, UdpPacket.class,
            IcmpPacket.class, Syscall.class, Command.class, Code.class, TcpOption.Nop.class, TcpOption.Eol.class,
            TcpOption.Mss.class, TcpOption.WindowScale.class, TcpOption.WindowScaleAny.class,
            TcpOption.SackPermitted.class, TcpOption.Sack.class, TcpOption.Timestamp.class, TcpOption.FastOpen.class,
            TcpOption.FastOpenExp.class, TcpOption.Md5.class, IcmpQuoted.Tcp.class, IcmpQuoted.Udp.class,
            IcmpQuoted.Raw.class, Expr.Int.class, Expr.Ellipsis.class, Expr.Symbol.class, Expr.Str.class,
            Expr.BinaryOr.class, Expr.Array.class, Expr.Struct.class, Expr.Call.class, Expr.Field.class);
        assertThat(seenMore).contains("option", "init", "cleanup", "define", "<...>", "ports", "ipv4 encapsulation",
            "urg", "no flags", "ecn NO_ECN", "ecn ECT0", "ecn ECT1", "ecn CE", "ecn ECT01", "tos", "flowlabel", "ttl",
            "blocking", "errno", "note");
    }

    private static void collect(Expr e, Set<Class<?>> seen) {
        seen.add(e.getClass());
        switch (e) {
            case Expr.BinaryOr o -> {
                collect(o.left(), seen);
                collect(o.right(), seen);
            }
            case Expr.Array a -> a.elements().forEach(x -> collect(x, seen));
            case Expr.Struct s -> s.members().forEach(x -> collect(x, seen));
            case Expr.Call c -> c.arguments().forEach(x -> collect(x, seen));
            case Expr.Field f -> {
                f.length().ifPresent(x -> collect(x, seen));
                collect(f.value(), seen);
            }
            default -> { }
        }
    }
}
