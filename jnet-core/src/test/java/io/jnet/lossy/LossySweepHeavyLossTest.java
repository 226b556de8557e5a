package io.jnet.lossy;

import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The virtual-time sweep of {@link LossySweepTest} at {@link LossyCase#HEAVY_LOSS} loss: duplication {0, 1}% x
 * reordering {0, 2}% x the four write sizes x the three buffers, 48 cases, each within {@link TransferBound} (the
 * formula is in {@link LossySweepTest}'s comment). Minutes of real time: runs only with {@code -Djnet.long=true}.
 */
@Tag("long")
class LossySweepHeavyLossTest {
    private static final SweepTable TABLE = new SweepTable("lossy transfer sweep on virtual time at "
            + LossyCase.percent(LossyCase.HEAVY_LOSS) + " loss (" + LossySweepTest.BYTES + " bytes each way, "
            + LossySweepTest.ONE_BYTE_BYTES + " with 1-byte writes)", "virt ms");

    static Stream<LossyCase> cases() {
        return LossyCase.sweep(new double[] {LossyCase.HEAVY_LOSS}, LossyCase.DUPLICATES, LossyCase.REORDERS,
                LossyCase.WRITE_SIZES, LossyCase.BUFFERS, LossySweepTest.BYTES, LossySweepTest.ONE_BYTE_BYTES,
                LossySweepTest.SEED).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void transfersByteExactWithinBound(LossyCase c) throws Exception {
        TABLE.runVirtual(c);
    }

    @AfterAll
    static void report() {
        System.out.print(TABLE.render());
    }
}
