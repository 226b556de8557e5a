package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Reno's window arithmetic on a {@link CongestionWindow} alone (Linux tcp_reno_cong_avoid, RFC 6928), in bytes. */
class RenoCongestionTest {
    static final int MSS = 1000;

    private final CongestionWindow w = new CongestionWindow();
    private final CongestionControl reno = CongestionControl.newInstance("reno");

    RenoCongestionTest() {
        w.init(MSS);
        reno.init(w);
    }

    @Test
    void lookedUpByLinuxsName() {
        assertThat(reno).isInstanceOf(RenoCongestion.class);
        assertThat(reno.name()).isEqualTo("reno").isEqualTo(CongestionControl.DEFAULT_NAME);
        assertThat(CongestionControl.newInstance("reno")).isNotSameAs(reno);
        assertThatThrownBy(() -> CongestionControl.newInstance("cubic"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cubic");
    }

    @Test
    void startsWithTheInitialWindowAndNoThreshold() {
        assertThat(w.cwnd).isEqualTo(10L * MSS);
        assertThat(w.inSlowStart()).isTrue();
    }

    @Test
    void slowStartGrowsByAllThatIsAcked() {
        reno.onAck(w, 500, true);
        assertThat(w.cwnd).isEqualTo(10L * MSS + 500);
        // a stretch ACK counts in full, as Linux's tcp_slow_start (no RFC 3465 limit of L = 2 segments)
        reno.onAck(w, 10L * MSS, true);
        assertThat(w.cwnd).isEqualTo(20L * MSS + 500);
    }

    @Test
    void slowStartStopsAtSsthreshAndTheRestCountsInCongestionAvoidance() {
        w.ssthresh = 14L * MSS;
        reno.onAck(w, 18L * MSS, true); // 4 segments to reach ssthresh, 14 left: one more segment, 0 left over
        assertThat(w.cwnd).isEqualTo(15L * MSS);
        assertThat(((RenoCongestion) reno).bytesAcked).isZero();
        reno.onAck(w, 16L * MSS, true);
        assertThat(w.cwnd).isEqualTo(16L * MSS);
        assertThat(((RenoCongestion) reno).bytesAcked).isEqualTo(MSS);
    }

    @Test
    void congestionAvoidanceAddsOneSegmentPerWindowOfAStretchAck() {
        w.ssthresh = 10L * MSS;
        reno.onAck(w, 25L * MSS, true); // tcp_cong_avoid_ai: delta = 25 / 10
        assertThat(w.cwnd).isEqualTo(12L * MSS);
        assertThat(((RenoCongestion) reno).bytesAcked).isEqualTo(5L * MSS);
    }

    @Test
    void noGrowthWhenTheWindowWasNotUsed() {
        reno.onAck(w, MSS, false);
        assertThat(w.cwnd).isEqualTo(10L * MSS);
    }

    @Test
    void congestionAvoidanceAddsOneSegmentPerWindowAcknowledged() {
        w.ssthresh = 10L * MSS;
        assertThat(w.inSlowStart()).isFalse();
        for (int i = 0; i < 9; i++) reno.onAck(w, MSS, true);
        assertThat(w.cwnd).as("9 of 10 segments acknowledged").isEqualTo(10L * MSS);
        reno.onAck(w, 1500, true);
        assertThat(w.cwnd).isEqualTo(11L * MSS);
        // the 500 bytes beyond the window count towards the next increase
        for (int i = 0; i < 10; i++) reno.onAck(w, MSS, true);
        assertThat(w.cwnd).isEqualTo(11L * MSS);
        reno.onAck(w, 500, true);
        assertThat(w.cwnd).isEqualTo(12L * MSS);
    }

    @Test
    void aLossHalvesTheFlightIntoSsthreshAndLeavesCwndToTheRecovery() {
        reno.onLossDetected(w, 8L * MSS);
        assertThat(w.ssthresh).isEqualTo(4L * MSS);
        assertThat(w.cwnd).isEqualTo(10L * MSS);
        reno.onLossDetected(w, 3L * MSS);
        assertThat(w.ssthresh).as("at least two segments").isEqualTo(2L * MSS);
    }

    @Test
    void aLossForgetsBytesCountedInCongestionAvoidance() {
        w.ssthresh = 10L * MSS;
        for (int i = 0; i < 9; i++) reno.onAck(w, MSS, true);
        reno.onLossDetected(w, 20L * MSS); // ssthresh 10 segments again
        for (int i = 0; i < 9; i++) reno.onAck(w, MSS, true);
        assertThat(w.cwnd).isEqualTo(10L * MSS);
        reno.onAck(w, MSS, true);
        assertThat(w.cwnd).isEqualTo(11L * MSS);
    }

    @Test
    void aTimeoutLeavesTheLossWindow() {
        reno.onRto(w, 7L * MSS, true);
        assertThat(w.ssthresh).isEqualTo(3500);
        assertThat(w.cwnd).isEqualTo(MSS);
        reno.onAck(w, MSS, true);
        assertThat(w.cwnd).as("slow start again").isEqualTo(2L * MSS);
    }

    @Test
    void aTimeoutWithinAnEpisodeAlreadyCutKeepsSsthresh() {
        reno.onRto(w, 7L * MSS, true);
        reno.onRto(w, 2L * MSS, false);
        assertThat(w.ssthresh).as("cut once for the window").isEqualTo(3500);
        assertThat(w.cwnd).isEqualTo(MSS);
    }

    @Test
    void restartAfterIdleCutsToTheInitialWindowOnly() {
        w.cwnd = 30L * MSS;
        reno.onRestartAfterIdle(w);
        assertThat(w.cwnd).isEqualTo(10L * MSS);
        w.cwnd = 4L * MSS;
        reno.onRestartAfterIdle(w);
        assertThat(w.cwnd).isEqualTo(4L * MSS);
    }

    @Test
    void cwndStopsAtTwoToTheThirty() {
        w.cwnd = (1L << 30) - 100;
        reno.onAck(w, MSS, true);
        assertThat(w.cwnd).isEqualTo(1L << 30);
    }

    @Test
    void anMssChangeKeepsTheNumberOfSegments() {
        w.setMss(500);
        assertThat(w.mss).isEqualTo(500);
        assertThat(w.cwnd).isEqualTo(5000);
        w.cwnd = 300;
        w.setMss(200);
        assertThat(w.cwnd).as("at least one segment").isEqualTo(200);
    }
}
