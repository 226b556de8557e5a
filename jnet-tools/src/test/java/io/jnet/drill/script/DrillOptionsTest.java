package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DrillOptionsTest {

    @Test
    void optionLinesAtTheTop() {
        Script s = Parse.script("--tolerance_usecs=10000\n--local_ip=192.168.0.1\n--ip_version=ipv4\n--strict_segments\n"
            + "--bind_port=-1\n--tolerance_percent=2.5\n--so_name=\"a b\"\n0 close(3) = 0");
        assertThat(s.options()).extracting(ScriptOption::name)
            .containsExactly("tolerance_usecs", "local_ip", "ip_version", "strict_segments", "bind_port", "tolerance_percent", "so_name");
        assertThat(s.option("tolerance_usecs")).contains("10000");
        assertThat(s.option("local_ip")).contains("192.168.0.1");
        assertThat(s.option("ip_version")).contains("ipv4");
        assertThat(s.option("strict_segments")).isEmpty();
        assertThat(s.options().get(3).value()).isEqualTo(Optional.empty());
        assertThat(s.option("so_name")).contains("a b");
        assertThat(s.options().get(0).pos()).isEqualTo(new SourcePos(1, 1));
        assertThat(s.options().get(6).render()).isEqualTo("--so_name=\"a b\"");
        assertThat(s.options().get(3).render()).isEqualTo("--strict_segments");
        for (String line : new String[] {"--x=a = b", "--x=", "--define=A=\"a b\"", "--define=A=`x y`", "--x=fd3d::1"}) {
            String text = line.startsWith("--x=") && !line.equals("--x=fd3d::1") ? "--x=\"" + line.substring(4) + "\"" : line;
            Script one = Parse.script(text + "\n0 close(3) = 0");
            assertThat(one.options().get(0).render()).as(text).isEqualTo(text);
        }
    }

    @Test
    void ipv6OptionValuesAreKeptAsText() {
        assertThat(Parse.script("--local_ip=fd3d:fa7b:d17d::0\n0 close(3) = 0").option("local_ip")).contains("fd3d:fa7b:d17d::0");
    }

    @Test
    void definesReplaceWordsInTheEvents() {
        Script s = Parse.script("--define=PORT=8080\n--define=MSG=\"hi\"\n--define=CMD=`echo x`\n--define=FLAGS=O_NONBLOCK\n"
            + "0 bind(3, {sin_port=htons(PORT)}, 16) = 0\n+0 write(3, MSG, 2) = 2\n+0 CMD\n+0 fcntl(3, F_SETFL, FLAGS) = 0");
        assertThat(s.option("define")).contains("FLAGS=O_NONBLOCK");
        assertThat(s.options().get(1).value()).contains("MSG=\"hi\"");
        Syscall bind = (Syscall) s.events().get(0).action();
        Expr.Call htons = (Expr.Call) ((Expr.Struct) bind.arguments().get(1)).field("sin_port").orElseThrow();
        assertThat(htons.arguments()).containsExactly(new Expr.Int(new SourcePos(5, 27), 8080, false));
        assertThat(((Syscall) s.events().get(1).action()).arguments().get(1)).isEqualTo(new Expr.Str(new SourcePos(6, 13), "hi", false));
        assertThat(s.events().get(2).action()).isEqualTo(new Command(new SourcePos(7, 4), "echo x"));
        assertThat(((Syscall) s.events().get(3).action()).arguments().get(2)).isEqualTo(new Expr.Symbol(new SourcePos(8, 22), "O_NONBLOCK"));
    }

    @Test
    void definesGivenByTheCallerAndOverriddenByTheScript() throws Exception {
        Script s = DrillParser.parse("t.pkt", "--define=B=2\n0 f(A, B) = 0", Map.of("A", "1", "B", "9"));
        assertThat(((Syscall) s.events().get(0).action()).arguments()).extracting(Expr::render).containsExactly("1", "2");
        Script cookie = DrillParser.parse("t.pkt", "0 > S 0:0(0) <FO TFO_COOKIE>", Map.of("TFO_COOKIE", "3f2a9c81d0e47b65"));
        assertThat(((TcpPacket) cookie.events().get(0).action()).options())
            .containsExactly(new TcpOption.FastOpen(new SourcePos(1, 15), "3f2a9c81d0e47b65"));
    }

    @Test
    void badOptionsAreRefused() {
        assertThat(Parse.error("--tolerance_usecs=\n+0 close(3) = 0").reason()).startsWith("expected a value after '--tolerance_usecs=', found '+'");
        assertThat(Parse.error("--define=A=\n+0 close(3) = 0").reason()).startsWith("expected a value after NAME=, found '+'");
        assertThat(Parse.error("0 close(3) = 0\n--late=1").reason()).isEqualTo("options (--name=value) must come before the first event");
    }
}
