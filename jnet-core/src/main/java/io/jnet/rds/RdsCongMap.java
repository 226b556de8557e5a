package io.jnet.rds;

import io.jnet.wire.RdsHeader;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The congestion map of one address (Linux's {@code struct rds_cong_map}, net/rds/cong.c): one bit per RDS
 * port, 65536 bits, set while the socket bound to that port holds more than half its SO_RCVBUF. A namespace
 * keeps one per local address (changed by its sockets, sent to peers) and one per remote address (replaced by
 * the peer's updates); a loopback connection's remote map is the local map itself, as Linux's
 * rds_cong_from_addr gives one map per address.
 *
 * <p>Wire form ({@link RdsHeader#CONG_MAP_BYTES} bytes): bit {@code n} is bit {@code n % 8} of byte {@code n / 8}
 * (Linux's little-endian bit operations). Held as 1024 64-bit words, word {@code n / 64} bit {@code n % 64}, which
 * is the same bit order read little-endian.
 */
final class RdsCongMap {
    static final int WORDS = RdsHeader.CONG_MAP_BYTES / 8;

    final int addr;
    private final AtomicLongArray words = new AtomicLongArray(WORDS);

    RdsCongMap(int addr) { this.addr = addr; }

    /** rds_cong_test_bit. */
    boolean isCongested(int port) { return (words.get(port >>> 6) & (1L << (port & 63))) != 0; }

    /** rds_cong_set_bit. */
    void set(int port) { words.getAndUpdate(port >>> 6, w -> w | 1L << (port & 63)); }

    /** rds_cong_clear_bit. */
    void clear(int port) { words.getAndUpdate(port >>> 6, w -> w & ~(1L << (port & 63))); }

    /** The map in its wire form, a fresh 8192-byte array. */
    byte[] toBytes() {
        byte[] b = new byte[RdsHeader.CONG_MAP_BYTES];
        for (int i = 0; i < WORDS; i++) {
            long w = words.get(i);
            for (int k = 0; k < 8; k++) b[i * 8 + k] = (byte) (w >>> (k * 8));
        }
        return b;
    }

    /**
     * Replaces the map with the 8192 bytes at {@code off} (rds_tcp_cong_recv) and returns Linux's portmask for
     * rds_cong_map_updated: bit {@code k} set when some port {@code p} with {@code p % 64 == k} went from
     * congested to uncongested.
     */
    long replace(byte[] b, int off) {
        long uncongested = 0;
        for (int i = 0; i < WORDS; i++) {
            long w = 0;
            for (int k = 0; k < 8; k++) w |= (b[off + i * 8 + k] & 0xFFL) << (k * 8);
            long old = words.getAndSet(i, w);
            uncongested |= old & ~w;
        }
        return uncongested;
    }
}
