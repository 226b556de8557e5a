package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.util.List;

/**
 * Plays the server of a {@link VirtualNet} by hand towards the client connection {@code c}: sends crafted
 * data segments at chosen stream offsets (offset 0 is the server's RCV.NXT at construction), each in a
 * buffer shaped as a TAP device hands it over ({@link PacketBuffer#DEFAULT_HEADROOM} in front, no spare
 * room behind) unless a test asks for tailroom. The real server never hears the client again: every
 * frame the client sends is dropped (and recorded), so the client's ACKs are read from the recording.
 *
 * <p>Byte {@code i} of the stream is {@link #data(int)}; {@link #checkAfterEachSegment} runs after every
 * segment delivered, e.g. to check the client's memory.
 */
final class CraftedSender {
    private final VirtualNet net;
    private final TcpConnection c;
    private final int sport;
    private final int dport;
    private final int ack;
    private final int tsVal;
    /** Sequence number of stream offset 0. */
    final int base;
    /** Spare bytes behind each frame's data (0: a TAP device's exact-size buffer). */
    int tailroom;
    /** Largest charge (truesize) of a buffer sent so far, in bytes. */
    int maxTruesize;
    /** Segments sent so far. */
    int segments;
    Runnable checkAfterEachSegment = () -> { };
    /** Adds options to each segment (after the timestamp, when the connection uses them); null: none. */
    java.util.function.Consumer<TcpOptions> extraOptions;
    /** Edits each frame (the TCP header at {@link VirtualNet#TCP_OFFSET}) before its checksum is filled again; null: none. */
    java.util.function.Consumer<byte[]> patch;

    CraftedSender(VirtualNet net, TcpConnection c) {
        this.net = net;
        this.c = c;
        TcpFrame last = net.filter.frames(false).getLast();
        this.sport = last.srcPort();
        this.dport = last.dstPort();
        this.ack = c.sndNxt;
        this.tsVal = last.options().hasTimestamp ? last.options().tsVal : 0;
        this.base = c.rcvNxt;
        net.filter.dropOutbound(f -> true);
    }

    /** Byte {@code i} of the stream. */
    static byte data(int i) { return (byte) (i * 31 + 7); }

    /** The stream bytes [from, to). */
    static byte[] data(int from, int to) {
        byte[] b = new byte[to - from];
        for (int i = from; i < to; i++) b[i - from] = data(i);
        return b;
    }

    /** Sends the stream bytes [from, to) as one segment. */
    void send(int from, int to) { send(from, to, 0); }

    /** Sends the stream bytes [from, to) as one segment with extra TCP flags (FIN). */
    void send(int from, int to, int flags) {
        TcpOptions o = null;
        if (c.tsEnabled) {
            o = new TcpOptions();
            o.hasTimestamp = true;
            o.tsVal = tsVal;
            o.tsEcr = c.tcp.tsClock() + c.tsOffset;
        }
        if (extraOptions != null) {
            if (o == null) o = new TcpOptions();
            extraOptions.accept(o);
        }
        byte[] frame = net.craftToClient(sport, dport, base + from, ack, Tcp.ACK | flags, 65535, o, data(from, to));
        if (patch != null) {
            patch.accept(frame);
            VirtualNet.refillChecksum(frame, false);
        }
        maxTruesize = Math.max(maxTruesize, PacketBuffer.DEFAULT_HEADROOM + frame.length + tailroom);
        net.filter.injectInbound(frame, PacketBuffer.DEFAULT_HEADROOM, tailroom);
        segments++;
        checkAfterEachSegment.run();
    }

    /** Sends the one byte at stream offset {@code i}. */
    void sendByte(int i) { send(i, i + 1); }

    /** Stream offset acknowledged by the newest ACK the client sent (after its delayed ACK could fire). */
    int acked() {
        net.advanceMillis(250);
        List<TcpFrame> out = net.filter.frames(true);
        assertThat(out).as("the client sent an ACK").isNotEmpty();
        return out.getLast().ack() - base;
    }

    /**
     * Acts as a sender's retransmission: resends the stream from the offset the client acknowledges, in
     * segments of {@code mss} bytes up to {@code end}, until all of it is acknowledged. Returns the rounds
     * it took (0 when everything was acknowledged already); fails when a round makes no progress.
     */
    int retransmitUntilAcked(int end, int mss) {
        int rounds = 0;
        for (int acked = acked(); acked != end; acked = acked()) {
            assertThat(acked).as("acknowledged offset").isBetween(0, end);
            rounds++;
            assertThat(rounds).as("retransmission rounds (acked %d of %d)", acked, end).isLessThanOrEqualTo(end / mss + 10);
            for (int from = acked; from < end; from += mss) send(from, Math.min(end, from + mss));
            assertThat(acked()).as("a retransmission round makes progress").isGreaterThan(acked);
        }
        return rounds;
    }
}
