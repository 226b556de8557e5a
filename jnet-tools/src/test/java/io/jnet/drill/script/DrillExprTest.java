package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DrillExprTest {

    @Test
    void integers() {
        assertThat(Parse.expr("1000")).isEqualTo(new Expr.Int(new SourcePos(1, 5), 1000, false));
        assertThat(Parse.expr("-1")).isEqualTo(new Expr.Int(new SourcePos(1, 5), -1, false));
        Expr hex = Parse.expr("0xffffffff");
        assertThat(hex).isEqualTo(new Expr.Int(new SourcePos(1, 5), 0xffffffffL, true));
        assertThat(hex.render()).isEqualTo("0xffffffff");
        assertThat(((Expr.Int) Parse.expr("0xffffffffffffffff")).value()).isEqualTo(-1L);
        assertThat(Parse.error("0 f(0x10000000000000000) = 0").reason()).startsWith("number 0x10000000000000000 out of range");
    }

    @Test
    void ellipsisSymbolsAndOr() {
        assertThat(Parse.expr("...")).isInstanceOf(Expr.Ellipsis.class);
        assertThat(Parse.expr("AF_INET")).isEqualTo(new Expr.Symbol(new SourcePos(1, 5), "AF_INET"));
        Expr or = Parse.expr("O_RDWR|O_NONBLOCK|0x40");
        assertThat(or).isInstanceOf(Expr.BinaryOr.class);
        Expr.BinaryOr top = (Expr.BinaryOr) or;
        assertThat(top.left()).isInstanceOf(Expr.BinaryOr.class);
        assertThat(top.right()).isEqualTo(new Expr.Int(new SourcePos(1, 23), 0x40, true));
        assertThat(or.render()).isEqualTo("O_RDWR|O_NONBLOCK|0x40");
    }

    @Test
    void strings() {
        assertThat(Parse.expr("\"GET / HTTP/1.1\\r\\n\"")).isEqualTo(new Expr.Str(new SourcePos(1, 5), "GET / HTTP/1.1\\r\\n", false));
        Expr truncated = Parse.expr("\"hello\"...");
        assertThat(truncated).isEqualTo(new Expr.Str(new SourcePos(1, 5), "hello", true));
        assertThat(truncated.render()).isEqualTo("\"hello\"...");
        assertThat(Parse.expr("\"ab\" \"cd\"")).isEqualTo(new Expr.Str(new SourcePos(1, 5), "abcd", false));
        assertThat(Parse.expr("\"\"")).isEqualTo(new Expr.Str(new SourcePos(1, 5), "", false));
    }

    @Test
    void arrays() {
        assertThat(Parse.expr("[1]")).isEqualTo(new Expr.Array(new SourcePos(1, 5), java.util.List.of(new Expr.Int(new SourcePos(1, 6), 1, false))));
        assertThat(((Expr.Array) Parse.expr("[]")).elements()).isEmpty();
        Expr iovs = Parse.expr("[{..., 500},{iov_base=..., iov_len=1000}]");
        assertThat(((Expr.Array) iovs).elements()).hasSize(2);
        assertThat(iovs.render()).isEqualTo("[{..., 500}, {iov_base=..., iov_len=1000}]");
    }

    @Test
    void structsWithFieldsAndCalls() {
        Expr.Struct sin = (Expr.Struct) Parse.expr("{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"192.0.2.1\")}");
        assertThat(sin.members()).hasSize(3).allMatch(m -> m instanceof Expr.Field);
        assertThat(sin.field("sa_family")).contains(new Expr.Symbol(new SourcePos(1, 16), "AF_INET"));
        Expr.Call port = (Expr.Call) sin.field("sin_port").orElseThrow();
        assertThat(port.function()).isEqualTo("htons");
        assertThat(port.arguments()).containsExactly(new Expr.Int(new SourcePos(1, 40), 8080, false));
        Expr.Call addr = (Expr.Call) sin.field("sin_addr").orElseThrow();
        assertThat(addr.arguments()).containsExactly(new Expr.Str(new SourcePos(1, 66), "192.0.2.1", false));
        assertThat(sin.field("nope")).isEmpty();
        assertThat(sin.render()).isEqualTo("{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"192.0.2.1\")}");
    }

    @Test
    void lingerPollfdAndEpollEvent() {
        assertThat(Parse.expr("{l_onoff=1, l_linger=0}").render()).isEqualTo("{l_onoff=1, l_linger=0}");
        Expr.Struct poll = (Expr.Struct) Parse.expr("{fd=4, events=POLLIN|POLLOUT, revents=POLLOUT}");
        assertThat(poll.field("events").orElseThrow()).isInstanceOf(Expr.BinaryOr.class);
        assertThat(poll.field("revents")).contains(new Expr.Symbol(poll.field("revents").orElseThrow().pos(), "POLLOUT"));
        assertThat(((Expr.Struct) Parse.expr("{events=EPOLLIN, u64=0}")).field("u64")).isPresent();
    }

    @Test
    void msghdrWithLengthsAndControlMessages() {
        Expr.Struct msg = (Expr.Struct) Parse.expr("{msg_name(...)=..., msg_iov(1)=[{..., 1000}], msg_flags=0, "
            + "msg_control=[{cmsg_level=SOL_TCP, cmsg_type=TCP_CM_INQ, cmsg_data=8000}]}");
        Expr.Field name = (Expr.Field) msg.members().get(0);
        assertThat(name.name()).isEqualTo("msg_name");
        assertThat(name.length()).contains(new Expr.Ellipsis(new SourcePos(1, 15)));
        assertThat(name.value()).isInstanceOf(Expr.Ellipsis.class);
        Expr.Field iov = (Expr.Field) msg.members().get(1);
        assertThat(iov.length()).contains(new Expr.Int(new SourcePos(1, 33), 1, false));
        assertThat(msg.field("msg_flags")).contains(new Expr.Int(new SourcePos(1, 61), 0, false));
        Expr.Array control = (Expr.Array) msg.field("msg_control").orElseThrow();
        assertThat(((Expr.Struct) control.elements().get(0)).field("cmsg_data")).isPresent();
        assertThat(msg.render()).isEqualTo("{msg_name(...)=..., msg_iov(1)=[{..., 1000}], msg_flags=0, "
            + "msg_control=[{cmsg_level=SOL_TCP, cmsg_type=TCP_CM_INQ, cmsg_data=8000}]}");
    }

    @Test
    void tcpInfoLikeStructsAndTopLevelAssignments() {
        Expr.Struct info = (Expr.Struct) Parse.expr("{tcpi_state=TCP_ESTABLISHED, tcpi_rto=200000, tcpi_snd_cwnd=10}");
        assertThat(info.field("tcpi_rto")).contains(new Expr.Int(info.field("tcpi_rto").orElseThrow().pos(), 200000, false));
        Expr f = Parse.expr("flags=O_RDWR|O_NONBLOCK");
        assertThat(f).isInstanceOf(Expr.Field.class);
        assertThat(((Expr.Field) f).value()).isInstanceOf(Expr.BinaryOr.class);
        assertThat(((Expr.Field) f).length()).isEqualTo(Optional.empty());
    }

    @Test
    void malformedExpressionsAreRefused() {
        assertThat(Parse.error("0 f([1, 2) = 0").reason()).isEqualTo("expected ',' or ']' in array, found ')'");
        assertThat(Parse.error("0 f({a=1 b=2}) = 0").reason()).isEqualTo("expected ',' or '}' in struct, found 'b'");
        assertThat(Parse.error("0 f(htons(1 2)) = 0").reason()).isEqualTo("expected ',' or ')' in the arguments of htons(...), found '2'");
        assertThat(Parse.error("0 f(msg_iov(1, 2)=[]) = 0").reason()).isEqualTo("expected one length in msg_iov(length)=..., found 2");
        assertThat(Parse.error("0 f(1.5) = 0").reason()).startsWith("expected an expression (a number, ..., a name, a \"string\", [array] or {struct}), found '1.5'");
        assertThat(Parse.error("0 f(a=) = 0").reason()).startsWith("expected an expression");
        assertThat(Parse.error("0 f(A|) = 0").reason()).startsWith("expected an expression");
    }

    @Test
    void nestingIsBounded() {
        String deep = "[".repeat(150) + "]".repeat(150);
        assertThat(Parse.error("0 f(" + deep + ") = 0").reason()).isEqualTo("expression nested too deeply (over 100 levels)");
        String ok = "[".repeat(50) + "]".repeat(50);
        assertThat(Parse.syscall("0 f(" + ok + ") = 0").arguments()).hasSize(1);
    }
}
