package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The windowed minimum of lib/win_minmax.c: a new minimum wins at once, an old one expires with its window. */
class MinRttFilterTest {
    static final long S = 1_000_000_000L;
    static final long WINDOW = 300 * S;

    @Test
    void noSampleIsLinuxsAllOnes() {
        assertThat(new MinRttFilter().get()).isEqualTo(0xffffffffL);
    }

    @Test
    void aLowerSampleReplacesAndAHigherOneWaitsForTheWindowToPass() {
        MinRttFilter f = new MinRttFilter();
        f.update(S, WINDOW, 500);
        f.update(2 * S, WINDOW, 300);
        assertThat(f.get()).isEqualTo(300);
        f.update(100 * S, WINDOW, 400); // second quarter: kept as the second-best
        f.update(200 * S, WINDOW, 450); // second half: the third-best
        assertThat(f.get()).isEqualTo(300);
        f.update(2 * S + WINDOW + 1, WINDOW, 600); // the 300 µs sample left the window
        assertThat(f.get()).isEqualTo(400);
        f.update(100 * S + WINDOW + 1, WINDOW, 600);
        assertThat(f.get()).isEqualTo(450);
        f.update(1000 * S, WINDOW, 700); // nothing left in the window
        assertThat(f.get()).isEqualTo(700);
        f.update(1001 * S, WINDOW, 0); // never below one microsecond
        assertThat(f.get()).isEqualTo(1);
    }
}
