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
     * Early demux (Linux's early_demux): looks up the socket for {@code packet} at IP receive, before the input
     * routing decision, and attaches the result with {@link PacketBuffer#setSocket} so that {@link #receive} does
     * not look it up again. Called at most once per packet, only when {@code net.ipv4.ip_early_demux} is on and
     * the packet is not a fragment; data starts at the transport header. The protocol reads its own switch
     * ({@code tcp_early_demux}, {@code udp_early_demux}) once here and never in {@link #receive}.
     *
     * @return the found socket's cached input route when the socket is an established connection (its flow's
     *     routing decision may then be reused), else null
     */
    default InputRouteCache earlyDemux(PacketBuffer packet, int src, int dst) { return null; }
}
