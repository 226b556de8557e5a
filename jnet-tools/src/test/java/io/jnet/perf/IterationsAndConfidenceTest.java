package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IterationsAndConfidenceTest {

    private static final Iterations DEFAULTS = Iterations.exactly(5);

    @Test
    void iterationsAreClippedToThreeThroughThirty() {
        assertThat(Iterations.parse("50,1", DEFAULTS)).isEqualTo(new Iterations(30, 3));
        assertThat(Iterations.parse("2", DEFAULTS)).isEqualTo(new Iterations(3, 3));
        assertThat(Iterations.parse("100", DEFAULTS)).isEqualTo(new Iterations(30, 30));
        assertThat(Iterations.parse("10,4", DEFAULTS)).isEqualTo(new Iterations(10, 4));
    }

    @Test
    void maxBelowMinIsRejectedWhenBothAreGiven() {
        assertThatThrownBy(() -> Iterations.parse("4,10", DEFAULTS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MAX (4) must not be below MIN (10)");
        assertThat(Iterations.parse("10,10", DEFAULTS)).isEqualTo(new Iterations(10, 10));
    }

    @Test
    void maxBelowTheKeptMinIsRaisedToMin() {
        assertThat(Iterations.parse(",8", DEFAULTS)).isEqualTo(new Iterations(8, 8));
        assertThat(Iterations.parse("4,", DEFAULTS)).isEqualTo(new Iterations(5, 5));
    }

    @Test
    void missingHalfKeepsTheCurrentValue() {
        assertThat(Iterations.parse(",3", DEFAULTS)).isEqualTo(new Iterations(5, 3));
        assertThat(Iterations.parse("12,", DEFAULTS)).isEqualTo(new Iterations(12, 5));
    }

    @Test
    void nonNumericIterationsAreRejected() {
        assertThatThrownBy(() -> Iterations.parse("ten", DEFAULTS)).hasMessageContaining("iteration count");
        assertThatThrownBy(() -> new Iterations(31, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void confidenceParsing() {
        assertThat(Confidence.parse("95,2", Confidence.DEFAULT)).isEqualTo(new Confidence(95, 2));
        assertThat(Confidence.parse("95", Confidence.DEFAULT)).isEqualTo(new Confidence(95, 5));
        assertThat(Confidence.parse(",10", Confidence.DEFAULT)).isEqualTo(new Confidence(99, 10));
        assertThat(Confidence.parse("99,2.5", Confidence.DEFAULT).widthPercent()).isEqualTo(2.5);
        assertThat(Confidence.DEFAULT.level()).isEqualTo(0.99);
    }

    @Test
    void onlyNinetyFiveAndNinetyNineAreSupported() {
        assertThatThrownBy(() -> Confidence.parse("90,5", Confidence.DEFAULT)).hasMessageContaining("95% and 99%");
        assertThatThrownBy(() -> Confidence.parse("99,0", Confidence.DEFAULT)).hasMessageContaining("positive");
        assertThatThrownBy(() -> Confidence.parse("99,x", Confidence.DEFAULT)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClipIsSaidOnlyWhenItChangedAGivenValue() {
        java.util.List<String> notes = new java.util.ArrayList<>();
        assertThat(Iterations.parse("50,2", Iterations.exactly(5), notes::add)).isEqualTo(new Iterations(30, 3));
        assertThat(notes).containsExactly("(-i 50,2 clipped to 30,3: netperf's range is 3 to 30)");
        notes.clear();
        assertThat(Iterations.parse("10", Iterations.exactly(5), notes::add)).isEqualTo(new Iterations(10, 10));
        assertThat(notes).isEmpty();
    }
}
