package io.jnet.link;

import io.jnet.buffer.PacketBuffer;

/**
 * A network device carrying Ethernet II frames (loopback too, with all-zero MAC addresses, as Linux's
 * {@code lo} shows them to tcpdump).
 *
 * <p>{@link #transmit} takes ownership of the buffer: its data starts at the Ethernet header. Frames
 * received by the device are handed to the {@link FrameReceiver} set by the namespace that owns it.
 * Decorators (pcap sniffer, impairment) wrap a device and forward both directions.
 */
public interface NetDevice extends AutoCloseable {

    /** Interface name, e.g. {@code lo}, {@code veth0}, {@code jnet0}. */
    String name();

    /** Maximum transmission unit in bytes (the IP packet size, without the 14-byte Ethernet header). */
    int mtu();

    /** Changes the MTU (bytes, 68..65535). */
    void setMtu(int mtu);

    /** The device's MAC address as a 48-bit value in the low bits (network byte order when written). */
    long macAddress();

    /** True when the device needs no neighbour resolution (loopback; Linux IFF_NOARP/IFF_LOOPBACK). */
    boolean isLoopback();

    /**
     * True when frames sent on this device never leave the process (loopback, a veth pair between jnet
     * namespaces): transport checksums may be left out, as Linux does with CHECKSUM_PARTIAL on such
     * devices. Decorators that show frames outside (capture) or alter them must answer false (default:
     * loopback only).
     */
    default boolean checksumOffload() { return isLoopback(); }

    /**
     * True when the device takes frames whose data goes on by reference ({@link PacketBuffer#payloadRegion()},
     * Linux NETIF_F_SG) and hands them on as they are: only devices whose frames stay in the process (loopback,
     * a veth pair), and only with {@link #checksumOffload()}, since no checksum is computed over such data.
     * TCP copies the data into the frame for any other device. Decorators answer false (default).
     */
    default boolean scatterGather() { return false; }

    /**
     * Largest frame payload in bytes the device accepts from TCP in one piece, beyond the MTU (Linux's
     * gso_max_size for a device whose peer takes it whole, like veth with GRO); 0 when frames must fit
     * the MTU. Decorators answer 0 (default), so captures and impairments see MTU-sized frames.
     */
    default int gsoMaxSize() { return 0; }

    /**
     * True when two sockets connected over this device may bypass it after their handshake (TCP friends,
     * {@code net.ipv4.tcp_friends}): a plain loopback that nobody watches or alters. Decorators answer false
     * (default), so a capture or an impairment on {@code lo} sees real segments for every connection.
     */
    default boolean allowsBypass() { return false; }

    /**
     * Sends one frame. Ownership of {@code frame} passes to the device, which releases it when done.
     * Never throws for a full queue or a closed device: such frames are counted in {@link #stats()} as
     * tx_dropped.
     */
    void transmit(PacketBuffer frame);

    /** Sets where received frames go; the owning namespace calls this when the device is attached. */
    void setReceiver(FrameReceiver receiver);

    /** Counters with Linux's {@code /sys/class/net/DEV/statistics} names. */
    DeviceStats stats();

    /** Stops the device; pending and later frames are dropped and counted. Idempotent. */
    @Override
    void close();
}
