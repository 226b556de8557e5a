package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * A system call and what it must return: {@code read(4, ..., 1000) = 1000},
 * {@code connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)}, {@code +0...0.2 accept(3, ..., ...) = 4}.
 *
 * <p>A blocking call is written with the time it must return after {@code ...}: in {@code T1...T2 call}, T1 (the
 * event's time) is when the call is made and T2 when it must return (within the tolerance), and while it blocks the
 * script goes on with the next events. As packetdrill's {@code adjust_relative_event_times} and
 * {@code syscall_thread}: T2 counts from the same origin as T1, never from T1 itself. For an absolute T1, T2 is a
 * time since the start of the script ({@code 0.1...0.3}: made at 0.1 s, returns at 0.3 s). For a relative T1 the
 * same offset (the time of the previous event) is added to both ({@code +0.1...0.3}: made 0.1 s after the previous
 * event, returns 0.3 s after it, i.e. after blocking 0.2 s; {@code +0...0.2}: blocks 0.2 s). T2 is written without a
 * {@code +}.
 *
 * @param pos where the call (or its {@code ...} end time) starts
 * @param blockingEndMicros T2 in microseconds, as written (its origin as above), for a call that blocks; empty for
 *     one that returns at once
 * @param name the call's name, e.g. {@code setsockopt}
 * @param arguments its arguments in order
 * @param result the expected return value (an {@link Expr.Int}, or {@link Expr.Ellipsis} for any, ...)
 * @param errno the errno for a failing call, if written
 * @param note a note in parentheses after the result (packetdrill ignores it), if written
 */
public record Syscall(SourcePos pos, OptionalLong blockingEndMicros, String name, List<Expr> arguments,
                      Expr result, Optional<Errno> errno, Optional<String> note) implements Action {

    public Syscall {
        arguments = List.copyOf(arguments);
    }

    /** {@code name(args)}, as in a message. */
    public String renderCall() {
        return name + "(" + arguments.stream().map(Expr::render).collect(Collectors.joining(", ")) + ")";
    }

    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        blockingEndMicros.ifPresent(end -> b.append("...").append(Seconds.format(end)).append(' '));
        b.append(renderCall()).append(" = ").append(result.render());
        errno.ifPresent(e -> b.append(' ').append(e.render()));
        note.ifPresent(n -> b.append(" (").append(n).append(')'));
        return b.toString();
    }

    @Override
    public String toString() {
        return render();
    }
}
