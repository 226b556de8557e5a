package io.jnet.lossy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.NetDevice;
import io.jnet.stack.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * A device decorator that drops the first transmission of chosen TCP data segments it transmits and
 * records when each data segment (by sequence number) was transmitted, so a test can see how long the
 * stack waited before retransmitting. Received frames pass unchanged. Frames are parsed as Ethernet II +
 * IPv4 + TCP (network byte order); anything else passes.
 */
final class SegmentDropper extends ForwardingDevice {
    private final Clock clock;
    private final IntPredicate dropFirst;
    private final Map<Integer, List<Long>> sent = new HashMap<>();

    /**
     * @param inner the device to wrap
     * @param clock the namespace's clock, for the transmission times
     * @param dropFirst given a data segment's sequence number, whether its first transmission is dropped
     */
    SegmentDropper(NetDevice inner, Clock clock, IntPredicate dropFirst) {
        super(inner);
        this.clock = clock;
        this.dropFirst = dropFirst;
    }

    /** The transmission times (clock ns) of the data segment starting at {@code seq}, first first. */
    synchronized List<Long> transmissions(int seq) {
        return List.copyOf(sent.getOrDefault(seq, List.of()));
    }

    @Override
    public void transmit(PacketBuffer frame) {
        int seq = dataSeq(frame);
        if (seq != NOT_DATA) {
            boolean first;
            synchronized (this) {
                List<Long> times = sent.computeIfAbsent(seq, k -> new ArrayList<>());
                first = times.isEmpty();
                times.add(clock.nanoTime());
            }
            if (first && dropFirst.test(seq)) {
                frame.release();
                return;
            }
        }
        super.transmit(frame);
    }

    private static final int NOT_DATA = Integer.MIN_VALUE;

    /** The TCP sequence number of a frame carrying TCP payload, else {@link #NOT_DATA}. */
    static int dataSeq(PacketBuffer frame) {
        byte[] a = frame.array();
        int p = frame.dataStart();
        int len = frame.length();
        if (len < 14 + 20 + 20 || (a[p + 12] & 0xff) != 0x08 || a[p + 13] != 0x00) return NOT_DATA;
        int ip = p + 14;
        int ihl = (a[ip] & 0x0f) * 4;
        if (a[ip + 9] != 6) return NOT_DATA;
        int total = ((a[ip + 2] & 0xff) << 8) | (a[ip + 3] & 0xff);
        int tcp = ip + ihl;
        int dataOffset = ((a[tcp + 12] & 0xff) >>> 4) * 4;
        if (total - ihl - dataOffset <= 0) return NOT_DATA;
        return ((a[tcp + 4] & 0xff) << 24) | ((a[tcp + 5] & 0xff) << 16) | ((a[tcp + 6] & 0xff) << 8) | (a[tcp + 7] & 0xff);
    }

}
