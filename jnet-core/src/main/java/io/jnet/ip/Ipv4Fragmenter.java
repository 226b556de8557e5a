package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.Errno;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Ipv4;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * IPv4 fragmentation on output (RFC 791 section 3.2 "Fragmentation", Linux {@code ip_fragment} /
 * {@code ip_do_fragment} slow path).
 *
 * <p>A datagram larger than the device MTU is cut into fragments whose payloads are multiples of 8 bytes
 * (except the last), each carrying a copy of the header with the fragment offset, MF flag, total length
 * and header checksum set. The first fragment keeps every option; later fragments keep only the options
 * with the copied flag (type bit {@code 0x80}), padded with EOL to a 4-byte multiple. Fragmenting a
 * datagram that is itself a fragment (forwarding) keeps its offset and its MF flag on the last piece.
 *
 * <p>Counters (Linux names): {@code IpFragOKs} per datagram fragmented, {@code IpFragCreates} per
 * fragment emitted, {@code IpFragFails} per datagram that had to be fragmented but could not be (DF set,
 * MTU too small, malformed header or options).
 *
 * <p>Stateless apart from the counters; safe to use from several threads.
 */
public final class Ipv4Fragmenter {

    /** Returned when DF is set and the datagram exceeds the MTU (Linux: {@code -EMSGSIZE}; send ICMP fragmentation needed). */
    public static final int ERR_MSGSIZE = -Errno.EMSGSIZE.number();
    /** Returned for a malformed header or options, or an MTU that cannot carry a header and 8 payload bytes ({@code -EINVAL}). */
    public static final int ERR_INVALID = -Errno.EINVAL.number();

    private static final int OFFSET_MASK = 0x1FFF;

    private final Mib mib;

    /** @param mib the namespace's counters (IpFragOKs, IpFragCreates, IpFragFails) */
    public Ipv4Fragmenter(Mib mib) {
        this.mib = Objects.requireNonNull(mib, "mib");
    }

    /**
     * Sends {@code packet} as is, or as fragments that fit {@code mtu}.
     *
     * <p>{@code packet}'s data starts at an IPv4 header (any IHL) and holds the whole datagram (its total
     * length field says how much; trailing bytes beyond it are ignored).
     * <ul>
     *   <li>Total length {@code <= mtu}: {@code packet} itself goes to {@code out} unchanged; returns 1.</li>
     *   <li>DF set: nothing is emitted, {@code packet} is not consumed (the caller still owns it, and sends
     *       ICMP destination unreachable / fragmentation needed with {@code mtu}, or reports EMSGSIZE);
     *       IpFragFails counted; returns {@link #ERR_MSGSIZE}.</li>
     *   <li>Malformed header, bad options, fragment offset overflow, or {@code mtu} too small for a header
     *       plus 8 bytes: nothing emitted, not consumed, IpFragFails counted; returns {@link #ERR_INVALID}.</li>
     *   <li>Otherwise each fragment goes to {@code out} in offset order as a new buffer with
     *       {@link PacketBuffer#DEFAULT_HEADROOM} bytes of headroom, network offset set to its data start,
     *       owner and socket copied from {@code packet}; {@code packet} is released (also if {@code out}
     *       throws); returns the number of fragments.</li>
     * </ul>
     *
     * @param packet the datagram, data at its IPv4 header
     * @param mtu the path/device MTU in bytes (IP header + payload)
     * @param out receives every emitted buffer, which it then owns
     * @return number of buffers passed to {@code out} (at least 1), or a negative errno
     */
    public int fragment(PacketBuffer packet, int mtu, Consumer<PacketBuffer> out) {
        Objects.requireNonNull(packet, "packet");
        Objects.requireNonNull(out, "out");
        packet.linearize(); // fragments are cut from the array
        byte[] b = packet.array();
        int off = packet.dataStart();
        if (Ipv4.validate(b, off, packet.length(), false) != Ipv4.OK) return fail(ERR_INVALID);
        int totalLength = Ipv4.totalLength(b, off);
        if (totalLength <= mtu) {
            out.accept(packet);
            return 1;
        }
        int flags = Ipv4.flagsFragment(b, off);
        if ((flags & Ipv4.FLAG_DF) != 0) return fail(ERR_MSGSIZE);

        int firstHeaderLength = Ipv4.headerLength(b, off);
        byte[] copied = FragOptions.copiedOptions(b, off, firstHeaderLength);
        if (copied == null) return fail(ERR_INVALID);
        int laterHeaderLength = Ipv4.MIN_HEADER_LENGTH + copied.length;
        if (mtu - firstHeaderLength < 8) return fail(ERR_INVALID);
        int payloadLength = totalLength - firstHeaderLength;
        int baseOffset = (flags & OFFSET_MASK) * 8;
        if (baseOffset + payloadLength > Ipv4.MAX_PACKET) return fail(ERR_INVALID);
        boolean lastMoreFragments = (flags & Ipv4.FLAG_MF) != 0;
        int keptFlags = flags & ~(Ipv4.FLAG_MF | OFFSET_MASK);

        int emitted = 0;
        try {
            int pos = 0;
            while (pos < payloadLength) {
                boolean first = pos == 0;
                int headerLength = first ? firstHeaderLength : laterHeaderLength;
                int size = Math.min((mtu - headerLength) & ~7, payloadLength - pos);
                boolean last = pos + size == payloadLength;
                PacketBuffer frag = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, headerLength + size);
                int at = frag.put(headerLength + size);
                byte[] fb = frag.array();
                if (first) {
                    System.arraycopy(b, off, fb, at, firstHeaderLength);
                } else {
                    System.arraycopy(b, off, fb, at, Ipv4.MIN_HEADER_LENGTH);
                    System.arraycopy(copied, 0, fb, at + Ipv4.MIN_HEADER_LENGTH, copied.length);
                    fb[at] = (byte) (0x40 | (headerLength / 4));
                }
                Ipv4.setTotalLength(fb, at, headerLength + size);
                int mf = (last && !lastMoreFragments) ? 0 : Ipv4.FLAG_MF;
                Ipv4.setFlagsFragment(fb, at, keptFlags | mf | ((baseOffset + pos) / 8));
                Ipv4.updateChecksum(fb, at);
                System.arraycopy(b, off + firstHeaderLength + pos, fb, at + headerLength, size);
                frag.setNetworkOffset(at);
                frag.setOwner(packet.owner());
                frag.setSocket(packet.socket());
                pos += size;
                emitted++;
                mib.inc(MibCounter.IpFragCreates);
                out.accept(frag);
            }
            mib.inc(MibCounter.IpFragOKs);
        } finally {
            packet.release();
        }
        return emitted;
    }

    private int fail(int code) {
        mib.inc(MibCounter.IpFragFails);
        return code;
    }
}
