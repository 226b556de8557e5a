package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;

/** Messages name the file, line and column of the problem and what was expected there. */
class DrillErrorMessageTest {

    private static DrillParseException error(String file, String text) {
        return catchThrowableOfType(DrillParseException.class, () -> DrillParser.parse(file, text));
    }

    @Test
    void fileLineColumnAndReason() {
        String text = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
            + "+0 bind(3, ..., ...) = 0\n"
            + "// a comment\n"
            + "+0 read(4, ..., 1000 = 1000\n";
        DrillParseException e = error("script.pkt", text);
        assertThat(e.getMessage()).isEqualTo("script.pkt:4:22: expected ')' after syscall arguments, found '='");
        assertThat(e.file()).isEqualTo("script.pkt");
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.column()).isEqualTo(22);
        assertThat(e.reason()).isEqualTo("expected ')' after syscall arguments, found '='");
    }

    @Test
    void semanticErrorsPointAtTheirToken() {
        DrillParseException e = error("a.pkt", "0 close(3) = 0\n+0 > . 1:1000(1000) ack 1");
        assertThat(e.getMessage()).isEqualTo("a.pkt:2:8: inconsistent TCP sequence numbers and payload length: 1 + 1000 is not 1000");
        DrillParseException w = error("a.pkt", "0 close(3) = 0\n  +0 < . 1:1(0) ack 1 win 99999");
        assertThat(w.getMessage()).isEqualTo("a.pkt:2:27: TCP window 99999 out of range (0..65535)");
        DrillParseException t = error("a.pkt", "0 close(3) = 0\n\n   * close(3) = 0");
        assertThat(t.getMessage()).isEqualTo("a.pkt:3:4: event time * can only be used with outbound packets");
    }

    @Test
    void theEndOfInputIsNamed() {
        DrillParseException e = error("b.pkt", "0 > S. 0:0(0) ack 1 <mss 1460,");
        assertThat(e.getMessage()).isEqualTo("b.pkt:1:31: expected a TCP option (nop, eol, mss N, wscale N, sackOK, "
            + "sack L:R ..., TS val N ecr N, FO [cookie], FOEXP [cookie], md5 digest, ECN [e0b N] [ceb N] [e1b N]), found end of input");
    }

    @Test
    void longTokensAreShortenedInMessages() {
        DrillParseException e = error("c.pkt", "0 > averyveryveryveryverylongflagword 0:0(0)");
        assertThat(e.reason()).startsWith("invalid TCP flag 'a' in 'averyveryveryveryverylongflagword'");
        DrillParseException s = error("c.pkt", "0 close(3) = 0 \"a very very very very long string\"");
        assertThat(s.reason()).isEqualTo("unexpected string \"a very very very very...\" after the system call");
    }

    @Test
    void errorsInMultiLineEventsPointIntoTheRightLine() {
        DrillParseException e = error("d.pkt", "0 sendmsg(4, {msg_name(...)=...,\n    msg_iov(1)=[{..., 1000}\n    msg_flags=0}, 0) = 1000");
        assertThat(e.line()).isEqualTo(3);
        assertThat(e.column()).isEqualTo(5);
        assertThat(e.reason()).isEqualTo("expected ',' or ']' in array, found 'msg_flags'");
    }
}
