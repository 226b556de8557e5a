package io.jnet.nio;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.NetDevice;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device decorator that drops every TCP SYN it transmits (Ethernet II + IPv4 + TCP, network byte order) and
 * passes everything else, ARP included: a peer behind it never answers a connect, as a host behind a firewall
 * that drops SYNs.
 */
final class SynDropper extends ForwardingDevice {
    private final AtomicInteger dropped = new AtomicInteger();

    SynDropper(NetDevice inner) {
        super(inner);
    }

    /** SYNs dropped so far. */
    int dropped() { return dropped.get(); }

    @Override
    public void transmit(PacketBuffer frame) {
        if (isSyn(frame)) {
            dropped.incrementAndGet();
            frame.release();
            return;
        }
        super.transmit(frame);
    }

    private static boolean isSyn(PacketBuffer frame) {
        byte[] a = frame.array();
        int p = frame.dataStart();
        if (frame.length() < 14 + 20 + 20 || (a[p + 12] & 0xff) != 0x08 || a[p + 13] != 0x00) return false;
        int ip = p + 14;
        if (a[ip + 9] != 6) return false;
        int tcp = ip + (a[ip] & 0x0f) * 4;
        return (a[tcp + 13] & 0x02) != 0;
    }
}
