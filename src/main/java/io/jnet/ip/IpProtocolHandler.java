package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;

/** A transport protocol above IPv4 (Linux's net_protocol): TCP, UDP, ICMP. */
public interface IpProtocolHandler {
    /**
     * A packet for a local address. Data starts at the transport header; {@code networkOffset()} points
     * at the IPv4 header. The handler takes ownership and must not throw.
     */
    void receive(PacketBuffer packet, int src, int dst);

    /**
     * An ICMP error quoting a packet this protocol sent ({@code b[off, off+len)} holds the quoted IPv4
     * header and at least 8 bytes of the transport header, as RFC 792 requires).
     *
     * @param info next-hop MTU for fragmentation needed, else 0
     */
    default void icmpError(int type, int code, int info, byte[] b, int off, int len) { }

    /**
     * Early demux (Linux's early_demux): look up the established socket for {@code packet} at IP
     * receive and attach it with {@link PacketBuffer#setSocket}. Called only when enabled by sysctls.
     */
    default void earlyDemux(PacketBuffer packet, int src, int dst) { }
}
