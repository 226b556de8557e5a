package io.jnet.drill.script;

/**
 * When an event happens, as the script writes it before the event; times are microseconds (written in seconds,
 * kept exactly to the microsecond).
 *
 * <p>As packetdrill: an {@link Absolute} time counts from the start of the script; a {@link Relative} one
 * ({@code +0.1}) from the previous event (packetdrill: from the time the previous event actually happened);
 * {@link Any} ({@code *}) and the ranges ({@code 0.1~0.2}, {@code +0.1~+0.2}) are only for outbound packets, whose
 * time may then be anything, or anything in the range (ends included).
 */
public sealed interface EventTime {

    /** Where the time is written. */
    SourcePos pos();

    /** The time in packetdrill's syntax. */
    String render();

    /** {@code 0.100}: microseconds since the start of the script. */
    record Absolute(SourcePos pos, long micros) implements EventTime {
        @Override public String render() { return Seconds.format(micros); }
        @Override public String toString() { return render(); }
    }

    /** {@code +0.1}: microseconds after the previous event. */
    record Relative(SourcePos pos, long micros) implements EventTime {
        @Override public String render() { return "+" + Seconds.format(micros); }
        @Override public String toString() { return render(); }
    }

    /** {@code *}: any time (outbound packets only). */
    record Any(SourcePos pos) implements EventTime {
        @Override public String render() { return "*"; }
        @Override public String toString() { return render(); }
    }

    /** {@code 0.1~0.2}: between two times since the start of the script, ends included; start &lt;= end. */
    record AbsoluteRange(SourcePos pos, long startMicros, long endMicros) implements EventTime {
        @Override public String render() { return Seconds.format(startMicros) + "~" + Seconds.format(endMicros); }
        @Override public String toString() { return render(); }
    }

    /** {@code +0.1~+0.2}: between two times after the previous event, ends included; start &lt;= end. */
    record RelativeRange(SourcePos pos, long startMicros, long endMicros) implements EventTime {
        @Override public String render() {
            return "+" + Seconds.format(startMicros) + "~+" + Seconds.format(endMicros);
        }
        @Override public String toString() { return render(); }
    }
}
