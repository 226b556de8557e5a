package io.jnet.stack;

import io.jnet.buffer.PacketBuffer;

/**
 * Receives frames of one EtherType (Linux's packet_type). {@code packet} data starts after the Ethernet
 * header; the handler takes ownership and must not throw.
 */
@FunctionalInterface
public interface EtherTypeHandler {
    void receive(Interface in, PacketBuffer packet);
}
