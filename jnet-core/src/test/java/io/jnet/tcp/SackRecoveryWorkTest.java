package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The work of one ACK during SACK recovery does not grow with the write queue: counted as scoreboard tree nodes
 * visited ({@link SackScoreboard#visits}), not timed. A duplicate ACK with four hostile blocks
 * ({@link SackRecoveryBench}) against 1k and 32k segments in flight with a few holes and with n / 4 holes.
 */
class SackRecoveryWorkTest {
    /**
     * Nodes one hostile ACK may visit: four blocks and the recovery's lookups at O(log n) each, with a treap's depth
     * (about 3 log2 n at worst in practice) for 32k segments. A walk of the queue would visit thousands.
     */
    static final long MAX_VISITS_PER_ACK = 2_000;

    @ParameterizedTest(name = "{0} segments, {1}")
    @CsvSource({"1000, quarters", "1000, alternate", "32768, quarters", "32768, alternate"})
    void aHostileAckInRecoveryVisitsABoundedNumberOfNodes(int n, String holes) throws Exception {
        try (SackRecoveryBench b = new SackRecoveryBench(n, holes)) {
            assertThat(b.segments()).isEqualTo(n);
            long max = 0;
            for (int i = 0; i < 200; i++) {
                long before = b.visits();
                assertThat(b.hostileAck()).isZero();
                max = Math.max(max, b.visits() - before);
            }
            System.out.printf("%d segments, %s holes: at most %d nodes visited per hostile ACK%n", n, holes, max);
            assertThat(b.inRecovery()).isTrue();
            assertThat(max).isLessThanOrEqualTo(MAX_VISITS_PER_ACK);
        }
    }
}
