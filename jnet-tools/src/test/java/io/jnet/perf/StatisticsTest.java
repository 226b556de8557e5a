package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatisticsTest {

    @Test
    void studentTQuantilesMatchTables() {
        // two-sided critical values from standard t tables
        assertThat(StudentT.quantile(0.975, 1)).isCloseTo(12.7062, within(1e-4));
        assertThat(StudentT.quantile(0.975, 2)).isCloseTo(4.3027, within(1e-4));
        assertThat(StudentT.quantile(0.975, 4)).isCloseTo(2.7764, within(1e-4));
        assertThat(StudentT.quantile(0.975, 29)).isCloseTo(2.0452, within(1e-4));
        assertThat(StudentT.quantile(0.995, 1)).isCloseTo(63.6567, within(1e-3));
        assertThat(StudentT.quantile(0.995, 2)).isCloseTo(9.9248, within(1e-4));
        assertThat(StudentT.quantile(0.995, 4)).isCloseTo(4.6041, within(1e-4));
        assertThat(StudentT.quantile(0.995, 29)).isCloseTo(2.7564, within(1e-4));
        // many degrees of freedom approach the normal distribution
        assertThat(StudentT.quantile(0.975, 1e7)).isCloseTo(1.95996, within(1e-4));
    }

    @Test
    void studentTCdfIsSymmetricAndInvertsTheQuantile() {
        assertThat(StudentT.cdf(0, 5)).isCloseTo(0.5, within(1e-12));
        assertThat(StudentT.cdf(-2, 5) + StudentT.cdf(2, 5)).isCloseTo(1, within(1e-12));
        assertThat(StudentT.cdf(StudentT.quantile(0.9, 7), 7)).isCloseTo(0.9, within(1e-10));
        assertThat(StudentT.quantile(0.025, 4)).isCloseTo(-2.7764, within(1e-4));
        assertThat(StudentT.critical(0.99, 4)).isCloseTo(4.6041, within(1e-4));
        // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi
        assertThat(StudentT.cdf(3, 1)).isCloseTo(0.5 + Math.atan(3) / Math.PI, within(1e-10));
        assertThatThrownBy(() -> StudentT.quantile(1.0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StudentT.cdf(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void confidenceIntervalOfKnownSample() {
        // mean 3, s = sqrt(2.5), n = 5: half width = t(0.975,4) * s / sqrt(5) = 2.7764 * 0.70711 = 1.9632
        ConfidenceInterval ci = ConfidenceInterval.of(List.of(1.0, 2.0, 3.0, 4.0, 5.0), 0.95);
        assertThat(ci.mean()).isEqualTo(3.0);
        assertThat(ci.halfWidth()).isCloseTo(1.9632, within(1e-4));
        assertThat(ci.low()).isCloseTo(1.0368, within(1e-4));
        assertThat(ci.widthPercent()).isCloseTo(100 * 2 * 1.9632 / 3, within(1e-2));
        ConfidenceInterval ci99 = ConfidenceInterval.of(List.of(1.0, 2.0, 3.0, 4.0, 5.0), 0.99);
        assertThat(ci99.halfWidth()).isCloseTo(4.6041 * Math.sqrt(2.5) / Math.sqrt(5), within(1e-4));
    }

    @Test
    void confidenceIsMetOnlyWhenNarrowEnough() {
        ConfidenceInterval tight = ConfidenceInterval.of(List.of(100.0, 100.1, 99.9, 100.0, 100.05), 0.99);
        ConfidenceInterval loose = ConfidenceInterval.of(List.of(50.0, 150.0, 100.0), 0.99);
        assertThat(Confidence.DEFAULT.isMet(tight)).isTrue();
        assertThat(Confidence.DEFAULT.isMet(loose)).isFalse();
        assertThat(ConfidenceInterval.of(List.of(7.0, 7.0, 7.0), 0.99).widthPercent()).isZero();
        assertThatThrownBy(() -> ConfidenceInterval.of(List.of(1.0), 0.99)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void medianMeanAndSpread() {
        assertThat(Stats.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
        assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(Stats.median(List.of(9.0))).isEqualTo(9.0);
        assertThat(Stats.mean(List.of(1.0, 2.0, 6.0))).isEqualTo(3.0);
        assertThat(Stats.sampleStdDev(List.of(2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0))).isCloseTo(2.13809, within(1e-5));
        assertThat(Stats.min(List.of(3.0, -1.0, 2.0))).isEqualTo(-1.0);
        assertThat(Stats.max(List.of(3.0, -1.0, 2.0))).isEqualTo(3.0);
        assertThatThrownBy(() -> Stats.median(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ratiosArePairwise() {
        assertThat(Stats.ratios(List.of(1.0, 3.0, 8.0), List.of(2.0, 3.0, 4.0))).containsExactly(0.5, 1.0, 2.0);
        assertThatThrownBy(() -> Stats.ratios(List.of(1.0), List.of(1.0, 2.0))).hasMessageContaining("unpaired");
    }

    @Test
    void comparisonGivesRatioMedianAndSpreadOverCompletePairs() {
        TestSpec spec = TestSpec.defaults(TestKind.TCP_RR, java.time.Duration.ofSeconds(1));
        Series a = Fixtures.series("jnet", TestKind.TCP_RR, 50, 90, 60, 70);
        Series b = Fixtures.series("kernel", TestKind.TCP_RR, 100, 100, 100);
        Comparison c = new Comparison(spec, "loopback", Confidence.DEFAULT, a, b, List.of(), null);
        assertThat(c.ratios()).containsExactly(0.5, 0.9, 0.6);
        assertThat(c.ratioMedian()).isCloseTo(0.6, within(1e-12));
        assertThat(c.ratioMin()).isCloseTo(0.5, within(1e-12));
        assertThat(c.ratioMax()).isCloseTo(0.9, within(1e-12));
        assertThat(a.median()).isEqualTo(65.0);
        Comparison alone = new Comparison(spec, "loopback", Confidence.DEFAULT, null, b, List.of(), null);
        assertThat(alone.ratios()).isEmpty();
        assertThat(alone.ratioMedian()).isNaN();
    }

    @Test
    void runValueUsesNetperfUnits() {
        RunResult stream = new RunResult(TestKind.TCP_STREAM, "k", 2.0, 250_000_000, 250_000_000, 0, null, SocketSizes.UNKNOWN);
        assertThat(stream.value()).isCloseTo(1000.0, within(1e-9)); // 2e9 bits / 2 s = 1000 * 10^6 bit/s
        RunResult rr = new RunResult(TestKind.TCP_RR, "k", 0.5, 0, 0, 1000, null, SocketSizes.UNKNOWN);
        assertThat(rr.value()).isEqualTo(2000.0);
    }
}
