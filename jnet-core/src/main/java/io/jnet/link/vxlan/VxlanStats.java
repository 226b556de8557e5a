package io.jnet.link.vxlan;

import java.util.concurrent.atomic.LongAdder;

/**
 * Why a {@link VxlanDevice} dropped packets, beside its {@link io.jnet.link.DeviceStats} (where each of
 * these is also counted as rx_errors, rx_dropped or tx_dropped as noted). Counts of packets.
 */
public final class VxlanStats {
    /** Datagrams shorter than the 8-byte VXLAN header or with the I flag clear (RFC 7348 section 5); also rx_errors. */
    public final LongAdder rxBadHeader = new LongAdder();
    /** Valid headers carrying a VNI other than the device's; also rx_dropped. */
    public final LongAdder rxVniMismatch = new LongAdder();
    /** Inner frames shorter than an Ethernet header; also rx_errors. */
    public final LongAdder rxTruncatedFrame = new LongAdder();
    /**
     * Inner frames whose source MAC is multicast, zero or the device's own (a loop; Linux
     * {@code vxlan_set_mac}); also rx_dropped.
     */
    public final LongAdder rxBadSourceMac = new LongAdder();
    /** Frames with no remote to go to (no forwarding entry and no default or flood remote); also tx_dropped. */
    public final LongAdder txNoRemote = new LongAdder();
    /** Frames longer than the MTU plus the Ethernet header (and one 802.1Q tag); also tx_dropped. */
    public final LongAdder txTooBig = new LongAdder();
    /** Forwarding entries learned for a MAC not seen before. */
    public final LongAdder fdbLearned = new LongAdder();
    /** Learned entries moved to another remote (the MAC appeared behind another VTEP). */
    public final LongAdder fdbMoved = new LongAdder();

    @Override
    public String toString() {
        return "rx_bad_header=" + rxBadHeader.sum() + " rx_vni_mismatch=" + rxVniMismatch.sum()
                + " rx_truncated_frame=" + rxTruncatedFrame.sum() + " rx_bad_source_mac=" + rxBadSourceMac.sum()
                + " tx_no_remote=" + txNoRemote.sum() + " tx_too_big=" + txTooBig.sum()
                + " fdb_learned=" + fdbLearned.sum() + " fdb_moved=" + fdbMoved.sum();
    }
}
