package io.jnet.link.impair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImpairmentConfigTest {

    @Test
    void parsesTheCommandLineForm() {
        ImpairmentConfig c = ImpairmentConfig.parse("loss=2%,reorder=1%,dup=1%,corrupt=0.1%,delay=5ms,jitter=1ms,reorder-gap=3,seed=7");
        DirectionConfig expected = new DirectionConfig(0.02, 0.01, 0.001, 0.01, 3, 0, 5_000_000, 1_000_000, 0, 1000);
        assertThat(c.egress()).isEqualTo(expected);
        assertThat(c.ingress()).isEqualTo(expected);
        assertThat(c.seed()).isEqualTo(7);
        assertThat(c.logCapacity()).isEqualTo(ImpairmentConfig.DEFAULT_LOG_CAPACITY);
        assertThat(c).hasToString("loss=2%,dup=1%,corrupt=0.1%,reorder=1%,delay=5ms,jitter=1ms,seed=7");
    }

    @Test
    void prefixedValuesOverrideUnprefixedOnesInAnyOrder() {
        ImpairmentConfig c = ImpairmentConfig.parse("egress.loss=5%,loss=1%,ingress.delay=250us,rate=100mbit,ingress.rate=1.5mbit,seed=-3,log=10");
        assertThat(c.egress().loss()).isEqualTo(0.05);
        assertThat(c.ingress().loss()).isEqualTo(0.01);
        assertThat(c.egress().delayNanos()).isZero();
        assertThat(c.ingress().delayNanos()).isEqualTo(250_000);
        assertThat(c.egress().rateBitsPerSecond()).isEqualTo(100_000_000);
        assertThat(c.ingress().rateBitsPerSecond()).isEqualTo(1_500_000);
        assertThat(c.seed()).isEqualTo(-3);
        assertThat(c.logCapacity()).isEqualTo(10);
        assertThat(c).hasToString("egress.loss=5%,ingress.loss=1%,ingress.delay=250us,egress.rate=100mbit,ingress.rate=1500kbit,seed=-3,log=10");
    }

    @Test
    void acceptsFractionsSpacesAndUpperCase() {
        ImpairmentConfig c = ImpairmentConfig.parse(" LOSS = 0.25 , Delay=1.5S, reorder=100%, reorder-gap=0, reorder-delay=2ms, limit=7, seed=1 ");
        assertThat(c.egress().loss()).isEqualTo(0.25);
        assertThat(c.egress().delayNanos()).isEqualTo(1_500_000_000L);
        assertThat(c.egress().reorder()).isEqualTo(1.0);
        assertThat(c.egress().reorderGap()).isZero();
        assertThat(c.egress().reorderDelayNanos()).isEqualTo(2_000_000);
        assertThat(c.egress().limit()).isEqualTo(7);
        assertThat(c).hasToString("loss=25%,reorder=100%,reorder-gap=0,reorder-delay=2ms,delay=1500ms,limit=7,seed=1");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "seed=0",
        "loss=2%,reorder=1%,dup=1%,corrupt=0.1%,delay=5ms,jitter=1ms,reorder-gap=3,seed=7",
        "loss=0.001%,corrupt=33.333%,seed=9",
        "egress.loss=1%,ingress.dup=0.5%,egress.delay=1ns,ingress.delay=1001us,jitter=7us,seed=-9223372036854775808",
        "reorder=50%,reorder-gap=0,reorder-delay=3s,rate=12345bit,limit=1,log=0,seed=5",
        "egress.reorder=1%,egress.reorder-gap=9,ingress.reorder-gap=0,ingress.reorder-delay=1ms,ingress.reorder=2%,seed=3",
        "rate=10gbit,seed=1",
    })
    void toStringRoundTrips(String text) {
        ImpairmentConfig c = ImpairmentConfig.parse(text);
        ImpairmentConfig again = ImpairmentConfig.parse(c.toString());
        assertThat(again).isEqualTo(c);
        assertThat(again.toString()).isEqualTo(c.toString());
    }

    @Test
    void randomSeedWhenNoneIsGivenAndItIsPrinted() {
        ImpairmentConfig c = ImpairmentConfig.parse("loss=1%");
        assertThat(c.toString()).isEqualTo("loss=1%,seed=" + c.seed());
        assertThat(ImpairmentConfig.parse(c.toString())).isEqualTo(c);
        assertThat(ImpairmentConfig.parse("").egress()).isEqualTo(DirectionConfig.NONE);
    }

    @Test
    void directionToStringListsNonDefaults() {
        assertThat(DirectionConfig.NONE.toString()).isEmpty();
        assertThat(DirectionConfig.NONE.isNone()).isTrue();
        assertThat(DirectionConfig.NONE.withDelay(2_000_000, 0).withLoss(0.5)).hasToString("loss=50%,delay=2ms");
    }

    @Test
    void badInputIsRejectedWithTheOffendingItem() {
        assertError("loss=101%", "bad impairment 'loss=101%': a probability must lie between 0% and 100%");
        assertError("loss=-1%", "bad impairment 'loss=-1%': a probability must lie between 0% and 100%");
        assertError("loss=2", "bad impairment 'loss=2': a probability must lie between 0% and 100%");
        assertError("loss=lots", "bad impairment 'loss=lots': expected a probability such as 2% or 0.02");
        assertError("loss=1e-3", "bad impairment 'loss=1e-3': expected a probability such as 2% or 0.02");
        assertError("delay=5", "bad impairment 'delay=5': a duration needs a unit: ns, us, ms or s (e.g. 5ms)");
        assertError("delay=-5ms", "bad impairment 'delay=-5ms': a duration cannot be negative");
        assertError("delay=0.5ns", "bad impairment 'delay=0.5ns': finer than a nanosecond");
        assertError("delay=2h", "bad impairment 'delay=2h': a duration needs a unit");
        assertError("jitter=3601s", "bad impairment 'jitter=3601s': at most 1 hour");
        assertError("rate=10mb", "bad impairment 'rate=10mb': a rate needs a unit: bit, kbit, mbit or gbit");
        assertError("reorder-gap=-1", "bad impairment 'reorder-gap=-1': must lie between 0 and 1000000");
        assertError("limit=0", "bad impairment 'limit=0': must lie between 1 and 1000000");
        assertError("seed=x", "bad impairment 'seed=x': expected a whole number");
        assertError("log=-1", "bad impairment 'log=-1': must lie between 0 and 1048576");
        assertError("lost=1%", "unknown impairment 'lost' (keys: loss, dup,");
        assertError("both.loss=1%", "unknown impairment 'both.loss'");
        assertError("loss=1%,loss=2%", "impairment 'loss' given twice");
        assertError("egress.seed=1", "'seed' applies to the whole device; drop the 'egress.' prefix");
        assertError("loss=1%,,dup=1%", "empty item in impairment specification 'loss=1%,,dup=1%'");
        assertError("loss", "impairment item 'loss' is not key=value");
        assertError("loss=", "impairment item 'loss=' is not key=value");
        assertError("ingress.reorder=1%,ingress.reorder-gap=0",
                "bad ingress impairments: reorder needs reorder-gap > 0 or reorder-delay > 0");
        assertThatThrownBy(() -> ImpairmentConfig.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordsValidateDirectly() {
        assertThatThrownBy(() -> DirectionConfig.NONE.withLoss(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loss must be a probability");
        assertThatThrownBy(() -> DirectionConfig.NONE.withLimit(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit must be >= 1");
        assertThatThrownBy(() -> DirectionConfig.NONE.withDelay(-1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay must lie in");
        assertThatThrownBy(() -> ImpairmentConfig.both(DirectionConfig.NONE, 1).withLogCapacity(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log capacity");
    }

    private static void assertError(String text, String message) {
        assertThatThrownBy(() -> ImpairmentConfig.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }
}
