package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Test shorthands: a script or a one-event script parsed, or the error a text gives. */
final class Parse {
    private Parse() {}

    static Script script(String text) {
        try {
            return DrillParser.parse("t.pkt", text);
        } catch (DrillParseException e) {
            throw new AssertionError("unexpected parse error: " + e.getMessage(), e);
        }
    }

    static Event event(String line) {
        Script s = script(line);
        assertThat(s.events()).hasSize(1);
        return s.events().get(0);
    }

    static <T extends Action> T action(String line, Class<T> type) {
        Action a = event(line).action();
        assertThat(a).isInstanceOf(type);
        return type.cast(a);
    }

    static TcpPacket tcp(String line) {
        return action(line, TcpPacket.class);
    }

    static Syscall syscall(String line) {
        return action(line, Syscall.class);
    }

    /** The first argument of {@code 0 f(<expr>) = 0}. */
    static Expr expr(String expr) {
        return syscall("0 f(" + expr + ") = 0").arguments().get(0);
    }

    static DrillParseException error(String text) {
        DrillParseException e = catchThrowableOfType(DrillParseException.class, () -> DrillParser.parse("t.pkt", text));
        assertThat(e).as("a parse error for: %s", text).isNotNull();
        return e;
    }
}
