package io.jnet.drill.target;

import java.io.IOException;
import java.net.Inet4Address;

/**
 * The stack a script plays against, as packetdrill sees a kernel: a wire on which the runner is the remote peer, the
 * socket system calls ({@link #syscalls}), and the clock the script's times count on.
 *
 * <p>The wire carries IPv4 packets without a link header (as a TUN device with IFF_NO_PI). The stack's address is
 * {@link #localAddress} (packetdrill's {@code --local_ip}, default 192.168.0.1), the runner's {@link #remoteAddress}
 * ({@code --remote_ip}, default 192.0.2.1), reached through the gateway 192.168.0.2 on the stack's side.
 * Packets the stack sends for other reasons (ARP, IPv6, multicast reports) never reach {@link #nextOutbound}.
 *
 * <p>Time is in microseconds since the target was opened ({@link #nowMicros}): real time on the kernel, the
 * namespace's virtual clock on jnet, where it moves only when the player waits ({@link #waitUntil},
 * {@link #nextOutbound}).
 */
public interface Target extends AutoCloseable {

    /** A short name for reports: {@code jnet} or {@code kernel}. */
    String name();

    /** The stack's address. */
    Inet4Address localAddress();

    /** The runner's (remote peer's) address. */
    Inet4Address remoteAddress();

    /** The socket system calls on this stack. */
    Syscalls syscalls();

    /** Microseconds since the target was opened, on its clock. */
    long nowMicros();

    /** Waits (or, on virtual time, moves the clock) until {@code micros}; returns at once if it has passed. */
    void waitUntil(long micros) throws InterruptedException;

    /** Hands the stack an IPv4 packet from the remote peer (checksums already filled in). */
    void inject(byte[] ipPacket) throws IOException;

    /**
     * The next IPv4 packet the stack sent to the remote peer, waiting for one until {@code deadlineMicros} on the
     * target's clock; null when none came by then.
     */
    byte[] nextOutbound(long deadlineMicros) throws InterruptedException;

    /**
     * Sets a sysctl by its Linux name ({@code net.ipv4.tcp_sack}) for this target's stack only.
     *
     * @throws UnsupportedOperationException when this stack has no such sysctl
     * @throws IllegalArgumentException when the value is refused
     */
    void sysctl(String name, String value);

    /** Closes every descriptor and removes the namespace and its devices. */
    @Override
    void close();
}
