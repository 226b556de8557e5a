package io.jnet.perf;

import java.net.InetSocketAddress;

/**
 * Unconnected UDP from many sources ({@link UdpMode#UNCONNECTED}): prebuilt Ethernet/IPv4/UDP frames written
 * into one end of a veth whose other end is in the server's namespace, each from the next of its source
 * address/port pairs in turn, with correct IPv4 and UDP checksums. Replies the server sends back through the
 * veth are read raw from the generator's end and counted. One thread sends; replies arrive on the server's
 * thread.
 */
public interface FrameGenerator extends AutoCloseable {

    /** The server's socket: bound to the address the frames go to, not connected. */
    PerfDatagramSocket server();

    /** How many source address/port pairs the generator rotates over. */
    int sources();

    /** Source pair {@code i} (0-based). */
    InetSocketAddress source(int i);

    /** The number of the source pair {@code a} is, or -1 when it is none of them. */
    int sourceIndex(InetSocketAddress a);

    /**
     * Sends one datagram of the payload from the next source in turn (after the last comes the first).
     *
     * @return the number of the source it came from
     */
    int sendNext();

    /** Sends one end-of-test datagram ({@link UdpEnds#END} as the first payload byte) from the first source. */
    void sendEnd();

    /** Frames handed to the veth so far. */
    long sent();

    /** Replies received on the generator's end that were addressed to the source of the last request. */
    long replies();

    /** Frames received on the generator's end that were not a reply to the last request. */
    long strayFrames();

    /** Where the frames come from, for reports. */
    String description();

    /** Closes the server socket and detaches the generator from its veth end; never throws. */
    @Override
    void close();
}
