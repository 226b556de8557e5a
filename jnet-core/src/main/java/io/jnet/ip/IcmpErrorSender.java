package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;

/** Sends ICMP errors about a received packet (implemented by the ICMP module, rate limited there). */
public interface IcmpErrorSender {
    /**
     * @param original the offending packet; {@code networkOffset()} points at its IPv4 header. Not consumed.
     * @param info rest-of-header value (next-hop MTU for fragmentation needed)
     */
    void sendError(PacketBuffer original, int type, int code, int info);
}
