package io.jnet.drill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RealClockTest {

    @Test
    void waitsUntilTheTimeAndNotMuchLonger() throws Exception {
        RealClock clock = new RealClock();
        long target = clock.nowMicros() + 5_000;
        clock.waitUntil(target);
        long now = clock.nowMicros();
        assertThat(now).isGreaterThanOrEqualTo(target);
        assertThat(now - target).as("overshoot, µs (a loaded machine may deschedule the spinner)").isLessThan(50_000);
        long before = clock.nowMicros();
        clock.waitUntil(0); // passed: at once
        assertThat(clock.nowMicros() - before).isLessThan(50_000);
    }
}
