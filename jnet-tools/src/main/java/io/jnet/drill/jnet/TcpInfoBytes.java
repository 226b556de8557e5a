package io.jnet.drill.jnet;

import io.jnet.drill.target.TcpInfoLayout;
import io.jnet.socket.TcpInfo;

/**
 * jnet's {@link TcpInfo} written into Linux's {@code struct tcp_info} bytes ({@link TcpInfoLayout}), as
 * {@code getsockopt(TCP_INFO)} returns them. Fields jnet does not keep are 0, as Linux leaves fields of features
 * that are off.
 */
final class TcpInfoBytes {
    private TcpInfoBytes() {}

    static byte[] of(TcpInfo i) {
        byte[] b = TcpInfoLayout.newInfo();
        set(b, "tcpi_state", i.state());
        set(b, "tcpi_ca_state", i.caState());
        set(b, "tcpi_retransmits", i.retransmits());
        set(b, "tcpi_probes", i.probes());
        set(b, "tcpi_backoff", i.backoff());
        set(b, "tcpi_options", i.options());
        set(b, "tcpi_snd_wscale", i.sndWscale());
        set(b, "tcpi_rcv_wscale", i.rcvWscale());
        set(b, "tcpi_delivery_rate_app_limited", i.deliveryRateAppLimited() ? 1 : 0);
        set(b, "tcpi_rto", i.rto());
        set(b, "tcpi_ato", i.ato());
        set(b, "tcpi_snd_mss", i.sndMss());
        set(b, "tcpi_rcv_mss", i.rcvMss());
        set(b, "tcpi_unacked", i.unacked());
        set(b, "tcpi_sacked", i.sacked());
        set(b, "tcpi_lost", i.lost());
        set(b, "tcpi_retrans", i.retrans());
        set(b, "tcpi_last_data_sent", i.lastDataSent());
        set(b, "tcpi_last_data_recv", i.lastDataRecv());
        set(b, "tcpi_last_ack_recv", i.lastAckRecv());
        set(b, "tcpi_pmtu", i.pmtu());
        set(b, "tcpi_rcv_ssthresh", i.rcvSsthresh());
        set(b, "tcpi_rtt", i.rtt());
        set(b, "tcpi_rttvar", i.rttvar());
        set(b, "tcpi_snd_ssthresh", i.sndSsthresh());
        set(b, "tcpi_snd_cwnd", i.sndCwnd());
        set(b, "tcpi_advmss", i.advmss());
        set(b, "tcpi_reordering", i.reordering());
        set(b, "tcpi_rcv_rtt", i.rcvRtt());
        set(b, "tcpi_rcv_space", i.rcvSpace());
        set(b, "tcpi_total_retrans", i.totalRetrans());
        set(b, "tcpi_pacing_rate", i.pacingRate());
        set(b, "tcpi_max_pacing_rate", -1L); // ~0ULL: no SO_MAX_PACING_RATE
        set(b, "tcpi_bytes_acked", i.bytesAcked());
        set(b, "tcpi_bytes_received", i.bytesReceived());
        set(b, "tcpi_segs_out", i.segsOut());
        set(b, "tcpi_segs_in", i.segsIn());
        set(b, "tcpi_notsent_bytes", i.notsentBytes());
        set(b, "tcpi_min_rtt", i.minRtt());
        set(b, "tcpi_data_segs_in", i.dataSegsIn());
        set(b, "tcpi_data_segs_out", i.dataSegsOut());
        set(b, "tcpi_delivery_rate", i.deliveryRate());
        set(b, "tcpi_busy_time", i.busyTime());
        set(b, "tcpi_rwnd_limited", i.rwndLimited());
        set(b, "tcpi_sndbuf_limited", i.sndbufLimited());
        set(b, "tcpi_bytes_sent", i.bytesSent());
        set(b, "tcpi_bytes_retrans", i.bytesRetrans());
        set(b, "tcpi_dsack_dups", i.dsackDups());
        set(b, "tcpi_reord_seen", i.reordSeen());
        set(b, "tcpi_rcv_ooopack", i.rcvOoopack());
        set(b, "tcpi_snd_wnd", i.sndWnd());
        set(b, "tcpi_rcv_wnd", i.rcvWnd());
        return b;
    }

    private static void set(byte[] b, String field, long v) { TcpInfoLayout.set(b, field, v); }
}
