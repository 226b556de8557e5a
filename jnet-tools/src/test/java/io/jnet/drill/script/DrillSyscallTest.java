package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DrillSyscallTest {

    @Test
    void nameArgumentsAndResult() {
        Syscall s = Parse.syscall("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3");
        assertThat(s.name()).isEqualTo("socket");
        assertThat(s.arguments()).containsExactly(new Expr.Ellipsis(new SourcePos(1, 10)),
            new Expr.Symbol(new SourcePos(1, 15), "SOCK_STREAM"), new Expr.Symbol(new SourcePos(1, 28), "IPPROTO_TCP"));
        assertThat(s.result()).isEqualTo(new Expr.Int(new SourcePos(1, 43), 3, false));
        assertThat(s.errno()).isEmpty();
        assertThat(s.note()).isEmpty();
        assertThat(s.blockingEndMicros()).isEmpty();
        assertThat(s.pos()).isEqualTo(new SourcePos(1, 3));
    }

    @Test
    void noArguments() {
        assertThat(Parse.syscall("0 getpid() = 1").arguments()).isEmpty();
        assertThat(Parse.syscall("0 getpid() = 1").render()).isEqualTo("getpid() = 1");
    }

    @Test
    void errnoWithItsText() {
        Syscall s = Parse.syscall("0 read(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)");
        assertThat(s.result()).isEqualTo(new Expr.Int(new SourcePos(1, 24), -1, false));
        assertThat(s.errno()).contains(new Errno(new SourcePos(1, 27), "EAGAIN", Optional.of("Resource temporarily unavailable")));
        assertThat(s.render()).isEqualTo("read(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)");
        assertThat(Parse.syscall("0 connect(3, ..., ...) = -1 EINPROGRESS").errno().orElseThrow().text()).isEmpty();
    }

    @Test
    void notes() {
        Syscall s = Parse.syscall("0 setsockopt(3, SOL_TCP, TCP_FASTOPEN_KEY, \"\", 0) = -1 (Invalid Argument)");
        assertThat(s.errno()).isEmpty();
        assertThat(s.note()).contains("Invalid Argument");
        Syscall flags = Parse.syscall("0 fcntl(3, F_GETFL) = 0x802 (flags O_RDWR|O_NONBLOCK)");
        assertThat(flags.result()).isEqualTo(new Expr.Int(flags.result().pos(), 0x802, true));
        assertThat(flags.note()).contains("flags O_RDWR|O_NONBLOCK");
        Syscall both = Parse.syscall("0 close(3) = -1 EBADF (Bad file descriptor) (closed twice)");
        assertThat(both.errno().orElseThrow().text()).contains("Bad file descriptor");
        assertThat(both.note()).contains("closed twice");
        assertThat(Parse.error("0 close(3) = 0 (a `b`)").reason()).startsWith("expected ')' to end the note, found command");
    }

    @Test
    void blockingCallsCarryTheirReturnTime() {
        Event e = Parse.event("+0...0.200 accept(3, ..., ...) = 4");
        Syscall s = (Syscall) e.action();
        assertThat(e.time()).isEqualTo(new EventTime.Relative(new SourcePos(1, 1), 0));
        assertThat(s.blockingEndMicros()).isEqualTo(OptionalLong.of(200_000));
        assertThat(e.render()).isEqualTo("+0...0.200 accept(3, ..., ...) = 4");
        Syscall absolute = Parse.syscall("0.1...0.35 read(4, ..., 1000) = 500");
        assertThat(absolute.blockingEndMicros()).isEqualTo(OptionalLong.of(350_000));
        assertThat(Parse.syscall("+0...30 connect(3, ..., ...) = 0").blockingEndMicros()).isEqualTo(OptionalLong.of(30_000_000));
    }

    @Test
    void argumentsMaySpanLines() {
        Syscall s = Parse.syscall("+0 setsockopt(3,\n   SOL_SOCKET,\n   SO_REUSEADDR, [1], 4) = 0");
        assertThat(s.arguments()).hasSize(5);
        assertThat(s.arguments().get(2).pos()).isEqualTo(new SourcePos(3, 4));
    }

    @Test
    void malformedCallsAreRefused() {
        assertThat(Parse.error("0 read(4, ..., 1000 = 1000").reason()).isEqualTo("expected ')' after syscall arguments, found '='");
        assertThat(Parse.error("0 read 4").reason()).isEqualTo("expected '(' after system call name 'read', found '4'");
        assertThat(Parse.error("0 read(4, ..., 1000)").reason())
            .isEqualTo("expected '=' and the expected result after read(...), found end of input");
        assertThat(Parse.error("0 read(4, ..., 1000) =").reason()).startsWith("expected an expression");
        assertThat(Parse.error("0 ...0.2 (4)").reason()).isEqualTo("expected a system call name, found '('");
        assertThat(Parse.error("0 ... read(4) = 1").reason()).startsWith("expected the time the blocking call returns after '...' in seconds");
        assertThat(Parse.error("0 read(4,) = 1").reason()).startsWith("expected an expression");
        assertThat(Parse.error("0 close(3) = 0 EBADF x").reason()).isEqualTo("unexpected 'x' after the system call");
    }
}
