package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TimerWheel on a VirtualClock: order, lazy re-arm, cancel, errors, several wheels on one clock. */
class TimerWheelTest {
    final VirtualClock clock = new VirtualClock(0);
    final TimerWheel wheel = new TimerWheel(clock, "test");
    final List<String> fired = new ArrayList<>();
    final List<Long> firedAt = new ArrayList<>();

    TimerWheelTest() { clock.register(wheel); }

    Timer timer(String name) {
        return wheel.newTimer(() -> {
            fired.add(name);
            firedAt.add(clock.nanoTime());
        });
    }

    @Test
    void timersFireInDeadlineOrderEachAtItsDeadline() {
        Timer a = timer("a"), b = timer("b"), c = timer("c"), d = timer("d");
        c.scheduleMillis(30);
        a.scheduleMillis(10);
        d.scheduleMillis(30);
        b.scheduleMillis(20);
        clock.advanceMillis(25);
        assertThat(fired).containsExactly("a", "b");
        assertThat(firedAt).containsExactly(10_000_000L, 20_000_000L);
        assertThat(clock.nanoTime()).isEqualTo(25_000_000L);
        clock.advanceMillis(100);
        // equal deadlines have no defined order (neither have Linux timers)
        assertThat(fired.subList(2, 4)).containsExactlyInAnyOrder("c", "d");
        assertThat(firedAt.subList(2, 4)).containsOnly(30_000_000L);
        assertThat(a.isPending()).isFalse();
        assertThat(wheel.nextDeadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void manyTimersComeOutSorted() {
        java.util.Random r = new java.util.Random(5);
        List<Long> want = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            long at = r.nextInt(1_000_000);
            want.add(at);
            Timer t = timer("t" + i);
            t.scheduleAt(at);
        }
        clock.advanceNanos(1_000_000);
        want.sort(null);
        assertThat(firedAt).isEqualTo(want);
    }

    @Test
    void cancelLeavesTheTimerQueuedWhileDeleteTakesItOut() {
        Timer a = timer("a"), b = timer("b");
        a.scheduleMillis(60_000);
        b.scheduleMillis(60_000);
        a.cancel();
        b.delete();
        assertThat(wheel.queued()).as("a stays queued until its old deadline, b is gone").isEqualTo(1);
        b.delete(); // neither armed nor queued: nothing to do
        b.scheduleMillis(10);
        assertThat(wheel.queued()).isEqualTo(2);
        clock.advanceMillis(60_000);
        assertThat(fired).containsExactly("b");
        assertThat(wheel.queued()).isZero();
    }

    @Test
    void rearmingLaterIsLazyAndFiresOnlyAtTheNewDeadline() {
        Timer a = timer("a");
        a.scheduleMillis(10);
        clock.advanceMillis(5);
        a.scheduleMillis(60_000); // new deadline 60.005 s; stays queued at 10 ms
        assertThat(wheel.nextDeadline()).isEqualTo(10_000_000L);
        clock.advanceMillis(10);
        assertThat(fired).isEmpty();
        assertThat(a.isPending()).isTrue();
        assertThat(a.deadline()).isEqualTo(60_005_000_000L);
        assertThat(wheel.nextDeadline()).as("requeued at the new deadline").isEqualTo(60_005_000_000L);
        clock.advanceMillis(59_989);
        assertThat(fired).isEmpty();
        clock.advanceMillis(1);
        assertThat(fired).containsExactly("a");
        assertThat(firedAt).containsExactly(60_005_000_000L);
    }

    @Test
    void rearmingLaterFromInsideAnotherTimerIsHonoured() {
        Timer a = timer("a");
        Timer b = wheel.newTimer(() -> a.scheduleMillis(1000));
        a.scheduleMillis(100);
        b.scheduleMillis(50);
        clock.advanceMillis(200);
        assertThat(fired).isEmpty();
        clock.advanceMillis(849);
        assertThat(fired).isEmpty();
        clock.advanceMillis(1);
        assertThat(firedAt).containsExactly(1_050_000_000L);
    }

    @Test
    void rearmingEarlierMovesTheTimerUp() {
        Timer a = timer("a"), b = timer("b");
        a.scheduleMillis(100);
        b.scheduleMillis(50);
        a.scheduleMillis(10);
        clock.advanceMillis(1000);
        assertThat(fired).containsExactly("a", "b");
        assertThat(firedAt).containsExactly(10_000_000L, 50_000_000L);
    }

    @Test
    void cancelledTimersDoNotFireAndCanBeArmedAgain() {
        Timer a = timer("a"), b = timer("b");
        a.scheduleMillis(10);
        b.scheduleMillis(20);
        a.cancel();
        assertThat(a.isPending()).isFalse();
        assertThat(a.deadline()).isEqualTo(-1);
        clock.advanceMillis(100);
        assertThat(fired).containsExactly("b");
        a.scheduleMillis(5);
        clock.advanceMillis(5);
        assertThat(fired).containsExactly("b", "a");
    }

    @Test
    void aTimerThatRearmsItselfRunsPeriodically() {
        Timer[] self = new Timer[1];
        self[0] = wheel.newTimer(() -> {
            firedAt.add(clock.nanoTime());
            if (firedAt.size() < 5) self[0].scheduleMillis(100);
        });
        self[0].scheduleMillis(100);
        clock.advanceMillis(10_000);
        assertThat(firedAt).containsExactly(100_000_000L, 200_000_000L, 300_000_000L, 400_000_000L, 500_000_000L);
    }

    @Test
    void aThrowingActionIsCountedAndDoesNotStopOthers() {
        List<Throwable> errors = new ArrayList<>();
        wheel.setErrorHandler(errors::add);
        Timer bad = wheel.newTimer(() -> { throw new IllegalStateException("boom"); });
        Timer good = timer("good");
        bad.scheduleMillis(1);
        good.scheduleMillis(2);
        clock.advanceMillis(3);
        assertThat(fired).containsExactly("good");
        assertThat(wheel.errors()).isEqualTo(1);
        assertThat(errors).singleElement().isInstanceOf(IllegalStateException.class);
    }

    @Test
    void wheelsSharingAClockFireInGlobalDeadlineOrder() {
        TimerWheel other = new TimerWheel(clock, "other");
        clock.register(other);
        Timer a = timer("a");
        Timer b = other.newTimer(() -> fired.add("b"));
        Timer c = timer("c");
        a.scheduleMillis(30);
        b.scheduleMillis(20);
        c.scheduleMillis(10);
        clock.advanceMillis(100);
        assertThat(fired).containsExactly("c", "b", "a");
        clock.unregister(other);
        b.scheduleMillis(1);
        clock.advanceMillis(10);
        assertThat(fired).as("an unregistered wheel is not driven").containsExactly("c", "b", "a");
    }

    @Test
    void virtualTimeOnlyMovesForward() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> clock.advanceNanos(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.isVirtual()).isTrue();
        clock.advance(java.time.Duration.ofSeconds(2));
        assertThat(clock.millis()).isEqualTo(2000);
    }
}
