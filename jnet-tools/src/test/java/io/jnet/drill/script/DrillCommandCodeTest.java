package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DrillCommandCodeTest {

    @Test
    void commandEvents() {
        Command c = Parse.action("+0 `sysctl -q net.ipv4.tcp_sack=0`", Command.class);
        assertThat(c.commandLine()).isEqualTo("sysctl -q net.ipv4.tcp_sack=0");
        assertThat(c.pos()).isEqualTo(new SourcePos(1, 4));
        assertThat(c.render()).isEqualTo("`sysctl -q net.ipv4.tcp_sack=0`");
        assertThat(Parse.event("0 `ls`").time()).isInstanceOf(EventTime.Absolute.class);
    }

    @Test
    void multiLineCommandsKeepTheirLineBreaks() {
        Script s = Parse.script("0 `a\nb \\`c\\``\n+0 close(3) = 0");
        assertThat(((Command) s.events().get(0).action()).commandLine()).isEqualTo("a\nb \\`c\\`");
        assertThat(s.events().get(1).pos()).isEqualTo(new SourcePos(3, 1));
    }

    @Test
    void initAndCleanupCommandsHaveNoTime() {
        Script s = Parse.script("`init one\ninit two`\n0 close(3) = 0\n`cleanup`\n");
        assertThat(s.initCommand().orElseThrow().commandLine()).isEqualTo("init one\ninit two");
        assertThat(s.cleanupCommand().orElseThrow().commandLine()).isEqualTo("cleanup");
        assertThat(s.events()).hasSize(1);
        Script none = Parse.script("0 close(3) = 0");
        assertThat(none.initCommand()).isEmpty();
        assertThat(none.cleanupCommand()).isEmpty();
    }

    @Test
    void aCommandWithoutATimeBetweenEventsIsRefused() {
        DrillParseException e = Parse.error("0 close(3) = 0\n`ls`\n+0 close(4) = 0");
        assertThat(e.reason()).startsWith("a `command` needs a time (like +0 `...`)");
        assertThat(e.line()).isEqualTo(2);
        assertThat(Parse.error("`only a command`").reason()).startsWith("a script needs at least one event");
        assertThat(Parse.error("`init`\n`cleanup`").reason()).startsWith("a `command` needs a time");
    }

    @Test
    void codeBlocks() {
        Code one = Parse.action("+0 %{ assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd }%", Code.class);
        assertThat(one.text()).isEqualTo("assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd");
        assertThat(one.render()).isEqualTo("%{ assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd }%");
        Code multi = Parse.action("+.01 %{\nassert a == 1\nassert b == {'x': 2}\n}%", Code.class);
        assertThat(multi.text()).isEqualTo("\nassert a == 1\nassert b == {'x': 2}\n");
        assertThat(Parse.error("+0 %{ a } %").reason()).startsWith("unterminated %{ code block");
    }

    @Test
    void emptyScriptsAreRefused() {
        assertThat(Parse.error("").reason()).startsWith("a script needs at least one event");
        assertThat(Parse.error("// only a comment\n").line()).isEqualTo(2);
    }
}
