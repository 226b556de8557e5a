package io.jnet.udp;

import io.jnet.socket.Errno;
import io.jnet.wire.Icmp;

/**
 * Which ICMP errors a UDP socket reports, and as which errno (Linux's {@code icmp_err_convert} table and
 * {@code __udp4_lib_err}). Without IP_RECVERR Linux reports only "hard" errors, and only to connected
 * sockets; soft errors (network or host unreachable, time exceeded) and fragmentation-needed are ignored.
 */
final class IcmpErrorMap {
    private IcmpErrorMap() {}

    /**
     * The error a connected socket records for an ICMP message of {@code type}/{@code code}, or null when
     * Linux would not report it. Destination-unreachable codes (RFC 792, RFC 1812 5.2.7.1): 2 protocol
     * unreachable: ENOPROTOOPT; 3 port unreachable: ECONNREFUSED; 6 network unknown, 8 source host isolated
     * (Linux ENONET), 9 network administratively prohibited: ENETUNREACH; 7 host unknown (Linux EHOSTDOWN),
     * 10 host administratively prohibited, 13 communication administratively prohibited, 14 host precedence
     * violation, 15 precedence cutoff: EHOSTUNREACH. ENONET and EHOSTDOWN are reported as the closest errno
     * jnet defines.
     */
    static Errno hardError(int type, int code) {
        if (type != Icmp.DEST_UNREACH) return null; // time exceeded is soft; parameter problem (EPROTO) unsupported
        return switch (code) {
            case Icmp.CODE_PROTO_UNREACH -> Errno.ENOPROTOOPT;
            case Icmp.CODE_PORT_UNREACH -> Errno.ECONNREFUSED;
            case 6, 8, 9 -> Errno.ENETUNREACH;
            case 7, 10, 13, 14, 15 -> Errno.EHOSTUNREACH;
            default -> null; // 0, 1, 5, 11, 12 are soft; 4 (fragmentation needed) updates the path MTU only
        };
    }
}
