package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DrillEventTimeTest {

    @Test
    void absoluteTimesAreMicrosecondsSinceTheStart() {
        assertThat(Parse.event("0.100 close(3) = 0").time()).isEqualTo(new EventTime.Absolute(new SourcePos(1, 1), 100_000));
        assertThat(Parse.event("2 close(3) = 0").time()).isEqualTo(new EventTime.Absolute(new SourcePos(1, 1), 2_000_000));
        assertThat(Parse.event(".000250 close(3) = 0").time()).isEqualTo(new EventTime.Absolute(new SourcePos(1, 1), 250));
    }

    @Test
    void decimalsAreExactToTheMicrosecond() {
        assertThat(((EventTime.Absolute) Parse.event("1.001 close(3) = 0").time()).micros()).isEqualTo(1_001_000);
        assertThat(((EventTime.Absolute) Parse.event("0.29 close(3) = 0").time()).micros()).isEqualTo(290_000);
        assertThat(((EventTime.Absolute) Parse.event("0.0000019 close(3) = 0").time()).micros()).isEqualTo(1);
    }

    @Test
    void relativeTimesFollowThePreviousEvent() {
        assertThat(Parse.event("+.1 close(3) = 0").time()).isEqualTo(new EventTime.Relative(new SourcePos(1, 1), 100_000));
        assertThat(Parse.event("+0 close(3) = 0").time()).isEqualTo(new EventTime.Relative(new SourcePos(1, 1), 0));
    }

    @Test
    void anyTimeAndRangesAreForOutboundPackets() {
        assertThat(Parse.event("* > . 1:1(0) ack 1").time()).isInstanceOf(EventTime.Any.class);
        assertThat(Parse.event("0.1~0.2 > . 1:1(0) ack 1").time())
            .isEqualTo(new EventTime.AbsoluteRange(new SourcePos(1, 1), 100_000, 200_000));
        assertThat(Parse.event("+.21~+.215 > P. 1:41(40) ack 1").time())
            .isEqualTo(new EventTime.RelativeRange(new SourcePos(1, 1), 210_000, 215_000));
    }

    @Test
    void anyTimeOrARangeOnAnythingElseIsRefused() {
        assertThat(Parse.error("* < . 1:1(0) ack 1 win 10").reason()).isEqualTo("event time * can only be used with outbound packets");
        assertThat(Parse.error("*  close(3) = 0").reason()).isEqualTo("event time * can only be used with outbound packets");
        assertThat(Parse.error("0.1~0.2 close(3) = 0").reason())
            .isEqualTo("an event time range can only be used with outbound packets");
        assertThat(Parse.error("+0~+1 < . 1:1(0) win 10").reason())
            .isEqualTo("an event time range can only be used with outbound packets");
    }

    @Test
    void badTimesAreRefused() {
        assertThat(Parse.error("-1 close(3) = 0").reason()).isEqualTo("negative time -1");
        assertThat(Parse.error("+-0.5 close(3) = 0").reason()).isEqualTo("negative time -0.5");
        assertThat(Parse.error("0.2~0.1 > . 1:1(0)").reason()).isEqualTo("time range is backwards");
        assertThat(Parse.error("+0.2~+0.1 > . 1:1(0)").reason()).isEqualTo("time range is backwards");
        assertThat(Parse.error("+0.1~0.2 > . 1:1(0)").reason()).startsWith("expected '+' before the end of a relative time range");
        assertThat(Parse.error("0.1~+0.2 > . 1:1(0)").reason()).startsWith("an absolute time range ends with an absolute time");
        assertThat(Parse.error("99999999999999 close(3) = 0").reason()).isEqualTo("time 99999999999999 out of range");
        assertThat(Parse.error("0x10 close(3) = 0").reason()).startsWith("expected an event time (like 0.100, +0.1 or *), found '0x10'");
        assertThat(Parse.error("close(3) = 0").reason()).startsWith("expected an event time");
    }

    @Test
    void timesRenderInSeconds() {
        assertThat(Seconds.format(0)).isEqualTo("0");
        assertThat(Seconds.format(2_000_000)).isEqualTo("2");
        assertThat(Seconds.format(100_000)).isEqualTo("0.100");
        assertThat(Seconds.format(250)).isEqualTo("0.00025");
        assertThat(Seconds.format(1_500_000)).isEqualTo("1.500");
        assertThat(Parse.event("+.21~+.215 > P. 1:41(40) ack 1").time().render()).isEqualTo("+0.210~+0.215");
    }
}
