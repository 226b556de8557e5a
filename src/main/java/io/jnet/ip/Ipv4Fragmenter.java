package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import java.util.function.Consumer;

/** PLACEHOLDER until fragmentation lands. */
public final class Ipv4Fragmenter {
    public Ipv4Fragmenter(Mib mib) { }

    public int fragment(PacketBuffer packet, int mtu, Consumer<PacketBuffer> out) {
        packet.release();
        return -1;
    }
}
