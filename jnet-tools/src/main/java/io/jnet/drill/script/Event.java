package io.jnet.drill.script;

/**
 * One line (or more, for a multi-line command or code block) of a script: a time and what happens then.
 *
 * @param pos where the event's time is written
 * @param time when
 * @param action what
 */
public record Event(SourcePos pos, EventTime time, Action action) {

    /** The event in packetdrill's syntax, e.g. {@code +0.1 > P. 1:1001(1000) ack 1}. */
    public String render() {
        boolean blockingEnd = action instanceof Syscall s && s.blockingEndMicros().isPresent();
        return time.render() + (blockingEnd ? "" : " ") + action.render();
    }

    @Override
    public String toString() {
        return render();
    }
}
