package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lossy sweep on real time with larger transfers ({@link #BYTES} each way; 1-byte writes send
 * {@link #ONE_BYTE_BYTES}) and {@link #SEEDS} seeds per setting, blocking sockets in threads: loss
 * {1, 3}% x duplication 1% x reordering 2% x all write sizes x socket buffers {64 KiB, 4 MiB} (10% loss
 * and 4 KiB buffers make 8 MiB a matter of many minutes on real time; the virtual-time sweep covers
 * them). Runs only
 * with {@code -Djnet.long=true}. Each case must finish within {@link TransferBound} of its size (the
 * model holds on real time too, the link adding 1 ms each way) plus {@link #SCHEDULING_SLACK_MS}.
 */
@Tag("long")
class LossySweepLongTest {
    static final long BYTES = 8L << 20;
    static final long ONE_BYTE_BYTES = 64 << 10;
    static final int SEEDS = 3;
    static final long SCHEDULING_SLACK_MS = 30_000;

    private static final SweepTable TABLE = new SweepTable(
            "lossy transfer sweep on real time (" + BYTES + " bytes each way, " + ONE_BYTE_BYTES + " with 1-byte writes, "
                    + SEEDS + " seeds)", "ms");

    static Stream<LossyCase> cases() {
        List<LossyCase> all = new ArrayList<>();
        for (int s = 0; s < SEEDS; s++) {
            all.addAll(LossyCase.sweep(new double[] {0.01, 0.03}, new double[] {0.01}, new double[] {0.02},
                    LossyCase.WRITE_SIZES, new int[] {64 << 10, 4 << 20}, BYTES, ONE_BYTE_BYTES, 100 + s));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void transfersByteExactWithinBound(LossyCase c) throws Exception {
        try {
            TransferResult r = RealTimeTransfer.run(c, TransferBound.millis(c) + SCHEDULING_SLACK_MS);
            TABLE.add(r);
            assertThat(r.withinBound()).isTrue();
        } catch (Throwable t) {
            TABLE.fail(c, t);
            throw t;
        }
    }

    @AfterAll
    static void report() {
        System.out.print(TABLE.render());
    }
}
