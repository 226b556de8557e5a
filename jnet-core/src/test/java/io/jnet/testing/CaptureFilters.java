package io.jnet.testing;

/** tshark display filters the capture checks share. */
public final class CaptureFilters {
    private CaptureFilters() {}

    /**
     * A TCP checksum of 0xFFFF where the computed one is 0x0000: its one's complement twin, which every receiver
     * accepts. Linux writes it (skb_checksum_help's CSUM_MANGLED_0) when a checksum it completes in software folds
     * to 0, about one frame in 65536; tshark calls it bad (RFC 1624). jnet never writes it: its checksums fold a
     * non-zero sum.
     */
    public static final String MANGLED_ZERO_TCP_CHECKSUM =
            "(tcp.checksum == 0xffff && tcp.checksum_calculated == 0x0000 && !_ws.malformed && ip.checksum.status != 0)";

    /** Frames matching {@code problems}, except a TCP checksum that is only {@link #MANGLED_ZERO_TCP_CHECKSUM}. */
    public static String problemsExceptMangledZero(String problems) {
        return "(" + problems + ") && !" + MANGLED_ZERO_TCP_CHECKSUM;
    }
}
