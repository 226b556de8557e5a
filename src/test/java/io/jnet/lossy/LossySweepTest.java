package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lossy transfer sweep on virtual time: loss {0, 1, 3, 10}% x duplication {0, 1}% x reordering
 * {0, 2}% (both directions of the link, 1 ms delay each way) x write sizes {1 B, 1460 B, 64 KiB, 1 MiB}
 * x SO_SNDBUF/SO_RCVBUF {4 KiB, 64 KiB, 4 MiB} on both ends: 192 cases, each sending {@link #BYTES}
 * ({@link #ONE_BYTE_BYTES} with 1-byte writes) both ways at once, checked by SHA-256, each finishing
 * within the virtual time {@link TransferBound} allows. A table of every case is printed at the end.
 */
class LossySweepTest {
    static final long BYTES = 256 << 10;
    static final long ONE_BYTE_BYTES = 4 << 10;
    static final long SEED = 7;

    private static final SweepTable TABLE = new SweepTable(
            "lossy transfer sweep on virtual time (" + BYTES + " bytes each way, " + ONE_BYTE_BYTES + " with 1-byte writes; "
                    + "impairments both ways, delay 1 ms each way, reorder gap " + LossyCase.REORDER_GAP + " frames / 10 ms)",
            "virt ms");

    static Stream<LossyCase> cases() {
        return LossyCase.sweep(BYTES, ONE_BYTE_BYTES, SEED).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void transfersByteExactWithinBound(LossyCase c) throws Exception {
        try {
            TransferResult r = VirtualTransfer.run(c);
            TABLE.add(r);
            assertThat(r.elapsedMs()).as("virtual ms of %s", c).isLessThanOrEqualTo(r.boundMs());
            if (c.loss() == 0) assertThat(r.dropped()).isZero();
        } catch (Throwable t) {
            TABLE.fail(c, t);
            throw t;
        }
    }

    /**
     * Every case again with both per-socket buffer caches on (net.ipv4.tcp_tx_skb_cache, tcp_rx_skb_cache):
     * byte-exact within the same bound.
     */
    @ParameterizedTest(name = "skb caches on: {0}")
    @MethodSource("cases")
    void transfersByteExactWithTheBufferCachesOn(LossyCase c) throws Exception {
        TransferResult r = VirtualTransfer.runWith(c, "net.ipv4.tcp_tx_skb_cache", "net.ipv4.tcp_rx_skb_cache");
        assertThat(r.elapsedMs()).as("virtual ms of %s", c).isLessThanOrEqualTo(r.boundMs());
        if (c.loss() == 0) assertThat(r.dropped()).isZero();
    }

    /** The same case twice gives the same run: the virtual time, the retransmissions and the impairments. */
    @Test
    void sameSeedSameRun() throws Exception {
        LossyCase c = new LossyCase(0.03, 0.01, 0.02, 1460, 64 << 10, BYTES, 4242);
        TransferResult first = VirtualTransfer.run(c);
        TransferResult second = VirtualTransfer.run(c);
        assertThat(second.elapsedMs()).isEqualTo(first.elapsedMs());
        assertThat(second.retransmitted()).isEqualTo(first.retransmitted());
        assertThat(second.frames()).isEqualTo(first.frames());
        assertThat(second.dropped()).isEqualTo(first.dropped()).isPositive();
    }

    @AfterAll
    static void report() {
        System.out.print(TABLE.render());
        List<TransferResult> rows = TABLE.rows();
        // the impairments did happen where configured: summed over the cases of each setting
        for (double loss : LossyCase.LOSSES) {
            if (loss > 0) {
                assertThat(SweepTable.sum(rows.stream().filter(r -> r.lossyCase().loss() == loss).toList(), TransferResult::dropped))
                        .as("frames dropped at loss %s", loss).isPositive();
            }
        }
        assertThat(SweepTable.sum(rows.stream().filter(r -> r.lossyCase().duplicate() > 0).toList(), TransferResult::duplicated))
                .isPositive();
        assertThat(SweepTable.sum(rows.stream().filter(r -> r.lossyCase().reorder() > 0).toList(), TransferResult::reordered))
                .isPositive();
    }
}
