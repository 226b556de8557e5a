package io.jnet.drill.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * Socket addresses in Linux's binary form: {@code struct sockaddr_in} (16 bytes: {@code sin_family} in host byte order,
 * i.e. little-endian on x86_64, then port and address in network byte order, then 8 zero bytes) and
 * {@code struct sockaddr_in6} (28 bytes: family, port, flow info, 16-byte address, scope id).
 */
final class SockAddrs {

    static final int AF_UNSPEC = 0;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCKADDR_IN_SIZE = 16;
    static final int SOCKADDR_IN6_SIZE = 28;
    /** {@code sizeof(struct sockaddr_storage)}: room for any address the kernel writes back. */
    static final int STORAGE_SIZE = 128;

    private SockAddrs() {}

    /**
     * The address as the kernel reads it: {@code sockaddr_in} for an IPv4 address, {@code sockaddr_in6} for IPv6.
     *
     * @throws IllegalArgumentException for an unresolved address
     */
    static byte[] encode(InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip == null) throw new IllegalArgumentException("unresolved address " + a);
        int port = a.getPort();
        if (ip instanceof Inet4Address) {
            byte[] b = new byte[SOCKADDR_IN_SIZE];
            b[0] = (byte) AF_INET;
            b[1] = 0;
            b[2] = (byte) (port >>> 8);
            b[3] = (byte) port;
            System.arraycopy(ip.getAddress(), 0, b, 4, 4);
            return b;
        }
        Inet6Address ip6 = (Inet6Address) ip;
        byte[] b = new byte[SOCKADDR_IN6_SIZE];
        b[0] = (byte) AF_INET6;
        b[2] = (byte) (port >>> 8);
        b[3] = (byte) port;
        System.arraycopy(ip6.getAddress(), 0, b, 8, 16);
        int scope = ip6.getScopeId();
        for (int i = 0; i < 4; i++) b[24 + i] = (byte) (scope >>> (8 * i));
        return b;
    }

    /**
     * The address in the first {@code length} bytes of {@code b}, or null when they hold none the seam knows:
     * fewer than 2 bytes, {@code AF_UNSPEC} or another family, or too short for its family.
     */
    static InetSocketAddress decode(byte[] b, int length) {
        if (length < 2) return null;
        int family = (b[0] & 0xFF) | (b[1] & 0xFF) << 8;
        int port = (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
        try {
            if (family == AF_INET && length >= 8) {
                return new InetSocketAddress(InetAddress.getByAddress(Arrays.copyOfRange(b, 4, 8)), port);
            }
            if (family == AF_INET6 && length >= 24) {
                int scope = length >= 28 ? (b[24] & 0xFF) | (b[25] & 0xFF) << 8 | (b[26] & 0xFF) << 16 | (b[27] & 0xFF) << 24 : 0;
                byte[] addr = Arrays.copyOfRange(b, 8, 24);
                InetAddress ip = scope != 0 ? Inet6Address.getByAddress(null, addr, scope) : InetAddress.getByAddress(addr);
                return new InetSocketAddress(ip, port);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // not reached: the lengths are right
        }
        return null;
    }

    /** {@link #encode} into native memory owned by {@code arena}. */
    static MemorySegment toNative(InetSocketAddress a, Arena arena) {
        byte[] b = encode(a);
        MemorySegment s = arena.allocate(b.length, 4);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    /** {@link #decode} of the first {@code length} bytes of a native address buffer. */
    static InetSocketAddress fromNative(MemorySegment s, int length) {
        int n = (int) Math.min(length, s.byteSize());
        if (n <= 0) return null;
        byte[] b = new byte[n];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return decode(b, n);
    }
}
