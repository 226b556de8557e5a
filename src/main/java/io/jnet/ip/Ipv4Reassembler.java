package io.jnet.ip;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.Sysctls;
import io.jnet.stack.TimerWheel;

/** PLACEHOLDER until reassembly lands. */
public final class Ipv4Reassembler {
    public Ipv4Reassembler(Sysctls s, Mib mib, TimerWheel t) { }

    public PacketBuffer accept(PacketBuffer fragment) {
        fragment.release();
        return null;
    }

    public void clear() { }
}
