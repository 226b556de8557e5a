package io.jnet.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the UDP tests share: opening the server's socket, and telling the server that the test is over.
 * UDP has no FIN and netperf uses its control connection for this; here the client sends end-of-test
 * datagrams, of the test's message size but filled with {@link #END} where data starts with the fill
 * pattern's {@code 'a'}, until the server says (through a latch: both sides are in this JVM) that it saw
 * one. Repeating them makes the end reliable even when the server's receive queue is still full and drops
 * the first ones.
 */
final class UdpEnds {
    private UdpEnds() {}

    /** The first byte of an end-of-test datagram. */
    static final byte END = 0;

    /** Time between end-of-test datagrams while the server has not seen one, in microseconds. */
    private static final long RESEND_MICROS = 200;

    /** Opens the server's socket, mapping a stack without UDP to {@link StackUnavailableException}. */
    static PerfDatagramSocket bind(PerfPath path, SocketSettings settings) throws PerfException {
        try {
            return path.bindDatagram(settings);
        } catch (UnsupportedOperationException e) {
            throw new StackUnavailableException(path.stack() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new PerfException(path.stack() + ": UDP bind failed: " + PeerRun.describe(e), e);
        }
    }

    /** True when the datagram that starts at {@code buf}'s index 0 is an end-of-test datagram. */
    static boolean isEnd(ByteBuffer buf) {
        return buf.get(0) == END;
    }

    /**
     * Sends end-of-test datagrams of {@code size} bytes on the connected {@code s} until {@code seen} is
     * counted down by the server (or the run is aborted, which interrupts this thread).
     */
    static void sendEnd(PerfDatagramSocket s, int size, CountDownLatch seen) throws IOException, InterruptedException {
        ByteBuffer end = ByteBuffer.allocateDirect(size);
        while (end.hasRemaining()) end.put(END);
        do {
            end.clear();
            s.send(end);
        } while (!seen.await(RESEND_MICROS, TimeUnit.MICROSECONDS));
    }
}
