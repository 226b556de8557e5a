package io.jnet.perf;

import java.util.Locale;

/**
 * How the UDP tests use their sockets ({@code jnet perf --udp}).
 *
 * <ul>
 * <li>{@link #NETPERF}: netperf's own shape, one flow: the client's socket is connected to the server's, the
 * server's is bound and not connected (netserver answers with sendto(2)).</li>
 * <li>{@link #CONNECTED}: {@code --flows N} pairs of sockets, each connected to the other (both ends of a flow
 * are connected sockets, the case Linux's UDP early demux serves on both sides).</li>
 * <li>{@link #UNCONNECTED}: one bound, not connected server socket receiving from {@code --flows N} source
 * address/port pairs, whose datagrams a raw frame generator writes into a veth joined to the server's
 * namespace (jnet paths only).</li>
 * </ul>
 */
public enum UdpMode {
    NETPERF, CONNECTED, UNCONNECTED;

    /** The option's spelling: {@code netperf}, {@code connected}, {@code unconnected}. */
    public String label() { return name().toLowerCase(Locale.ROOT); }

    /**
     * Parses {@code --udp}'s value, case-insensitive.
     *
     * @throws IllegalArgumentException for any other word
     */
    public static UdpMode parse(String s) {
        String t = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
        for (UdpMode m : values()) if (m.label().equals(t)) return m;
        throw new IllegalArgumentException("--udp expects netperf, connected or unconnected: " + s);
    }
}
