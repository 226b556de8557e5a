package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/** Receives frames from a device. Implementations take ownership of {@code frame} and never throw. */
@FunctionalInterface
public interface FrameReceiver {
    void receive(NetDevice device, PacketBuffer frame);
}
