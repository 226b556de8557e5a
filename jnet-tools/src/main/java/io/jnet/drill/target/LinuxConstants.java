package io.jnet.drill.target;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The Linux x86_64 values of the symbols packetdrill scripts pass to socket system calls and compare results with:
 * address families, socket types, protocols and option levels, {@code SO_*}, {@code TCP_*}, {@code IP_*} and
 * {@code IPV6_*} option names, {@code MSG_*} flags, {@code POLL*} and {@code EPOLL*} bits, {@code fcntl} and
 * {@code ioctl} commands, {@code SHUT_*}, the TCP states {@code tcpi_state} reports ({@code TCP_ESTABLISHED} 1 ..
 * {@code TCP_CLOSING} 11), congestion-avoidance states ({@code TCP_CA_*}), {@code TCPI_OPT_*} bits, timestamping
 * flags and the {@code TCP_NLA_*} attribute types. Values are as the kernel and glibc headers define them
 * ({@code include/uapi/linux/tcp.h}, {@code include/uapi/asm-generic/socket.h}, {@code bits/socket.h} ...).
 *
 * <p>Values are returned as the C constant's value, never sign-extended: {@code EPOLLET} is {@code 0x80000000L}, so a
 * caller that needs the 32-bit field casts with {@code (int)}. Errno names ({@code EAGAIN} ...) resolve through
 * {@link LinuxErrno}. packetdrill's upper-case spellings of the congestion states ({@code TCP_CA_OPEN}) are accepted
 * besides the kernel's ({@code TCP_CA_Open}).
 *
 * <p>Names back, for messages: {@link #name(Group, long)} for a value of one kind ({@code TCP_INFO} for 11 among TCP
 * options, {@code TCP_CLOSE} for 7 among TCP states) and {@link #flags(Group, long)} for a bit mask
 * ({@code POLLIN|POLLOUT}). Immutable and thread-safe.
 */
public final class LinuxConstants {

    /** The kinds of constants, so that one number can be named in the right family. */
    public enum Group {
        ADDRESS_FAMILY, SOCKET_TYPE, SOCKET_TYPE_FLAG, PROTOCOL, LEVEL, SOCKET_OPTION, TCP_OPTION, IP_OPTION,
        IPV6_OPTION, IP_PMTUDISC, MSG_FLAG, POLL_BIT, EPOLL_BIT, EPOLL_CTL, EPOLL_FLAG, OPEN_FLAG, FCNTL_COMMAND,
        FD_FLAG, IOCTL_REQUEST, SHUTDOWN_HOW, TCP_STATE, TCP_CA_STATE, TCPI_OPTION, TCP_REPAIR_MODE, TIMESTAMPING_FLAG,
        SCM_TYPE, ERRQUEUE_ORIGIN, ERRQUEUE_CODE, TCP_NLA, SPLICE_FLAG, LIMIT, TCPI_ECN_MODE
    }

    private record Symbol(String name, long value, Group group) {}

    private static final Map<String, Symbol> BY_NAME = new LinkedHashMap<>();
    private static final Map<Group, List<Symbol>> BY_GROUP = new EnumMap<>(Group.class);

    static {
        Group g = Group.ADDRESS_FAMILY;
        def(g, "AF_UNSPEC", 0, "AF_UNIX", 1, "AF_LOCAL", 1, "AF_INET", 2, "AF_NETLINK", 16, "AF_PACKET", 17,
                "AF_INET6", 10, "PF_UNSPEC", 0, "PF_UNIX", 1, "PF_LOCAL", 1, "PF_INET", 2, "PF_INET6", 10,
                "PF_NETLINK", 16, "PF_PACKET", 17);
        def(Group.SOCKET_TYPE, "SOCK_STREAM", 1, "SOCK_DGRAM", 2, "SOCK_RAW", 3, "SOCK_RDM", 4,
                "SOCK_SEQPACKET", 5, "SOCK_DCCP", 6, "SOCK_PACKET", 10);
        def(Group.SOCKET_TYPE_FLAG, "SOCK_NONBLOCK", 04000, "SOCK_CLOEXEC", 02000000);
        def(Group.PROTOCOL, "IPPROTO_IP", 0, "IPPROTO_ICMP", 1, "IPPROTO_IGMP", 2, "IPPROTO_IPIP", 4,
                "IPPROTO_TCP", 6, "IPPROTO_UDP", 17, "IPPROTO_IPV6", 41, "IPPROTO_GRE", 47, "IPPROTO_ESP", 50,
                "IPPROTO_AH", 51, "IPPROTO_ICMPV6", 58, "IPPROTO_SCTP", 132, "IPPROTO_UDPLITE", 136,
                "IPPROTO_RAW", 255, "IPPROTO_MPTCP", 262);
        def(Group.LEVEL, "SOL_IP", 0, "SOL_SOCKET", 1, "SOL_TCP", 6, "SOL_UDP", 17, "SOL_IPV6", 41,
                "SOL_ICMPV6", 58, "SOL_RAW", 255);
        def(Group.SOCKET_OPTION, "SO_DEBUG", 1, "SO_REUSEADDR", 2, "SO_TYPE", 3, "SO_ERROR", 4,
                "SO_DONTROUTE", 5, "SO_BROADCAST", 6, "SO_SNDBUF", 7, "SO_RCVBUF", 8, "SO_KEEPALIVE", 9,
                "SO_OOBINLINE", 10, "SO_NO_CHECK", 11, "SO_PRIORITY", 12, "SO_LINGER", 13, "SO_BSDCOMPAT", 14,
                "SO_REUSEPORT", 15, "SO_PASSCRED", 16, "SO_PEERCRED", 17, "SO_RCVLOWAT", 18, "SO_SNDLOWAT", 19,
                "SO_RCVTIMEO", 20, "SO_RCVTIMEO_OLD", 20, "SO_SNDTIMEO", 21, "SO_SNDTIMEO_OLD", 21,
                "SO_SECURITY_AUTHENTICATION", 22, "SO_SECURITY_ENCRYPTION_TRANSPORT", 23,
                "SO_SECURITY_ENCRYPTION_NETWORK", 24, "SO_BINDTODEVICE", 25, "SO_ATTACH_FILTER", 26,
                "SO_DETACH_FILTER", 27, "SO_PEERNAME", 28, "SO_TIMESTAMP", 29, "SO_TIMESTAMP_OLD", 29,
                "SO_ACCEPTCONN", 30, "SO_PEERSEC", 31, "SO_SNDBUFFORCE", 32, "SO_RCVBUFFORCE", 33,
                "SO_PASSSEC", 34, "SO_TIMESTAMPNS", 35, "SO_TIMESTAMPNS_OLD", 35, "SO_MARK", 36,
                "SO_TIMESTAMPING", 37, "SO_TIMESTAMPING_OLD", 37, "SO_PROTOCOL", 38, "SO_DOMAIN", 39,
                "SO_RXQ_OVFL", 40, "SO_WIFI_STATUS", 41, "SO_PEEK_OFF", 42, "SO_NOFCS", 43, "SO_LOCK_FILTER", 44,
                "SO_SELECT_ERR_QUEUE", 45, "SO_BUSY_POLL", 46, "SO_MAX_PACING_RATE", 47, "SO_BPF_EXTENSIONS", 48,
                "SO_INCOMING_CPU", 49, "SO_ATTACH_BPF", 50, "SO_ATTACH_REUSEPORT_CBPF", 51,
                "SO_ATTACH_REUSEPORT_EBPF", 52, "SO_CNX_ADVICE", 53, "SO_MEMINFO", 55, "SO_INCOMING_NAPI_ID", 56,
                "SO_COOKIE", 57, "SO_PEERGROUPS", 59, "SO_ZEROCOPY", 60, "SO_TXTIME", 61, "SO_BINDTOIFINDEX", 62,
                "SO_TIMESTAMP_NEW", 63, "SO_TIMESTAMPNS_NEW", 64, "SO_TIMESTAMPING_NEW", 65, "SO_RCVTIMEO_NEW", 66,
                "SO_SNDTIMEO_NEW", 67, "SO_DETACH_REUSEPORT_BPF", 68, "SO_PREFER_BUSY_POLL", 69,
                "SO_BUSY_POLL_BUDGET", 70, "SO_NETNS_COOKIE", 71, "SO_BUF_LOCK", 72, "SO_RESERVE_MEM", 73,
                "SO_TXREHASH", 74, "SO_RCVMARK", 75);
        def(Group.TCP_OPTION, "TCP_NODELAY", 1, "TCP_MAXSEG", 2, "TCP_CORK", 3, "TCP_KEEPIDLE", 4,
                "TCP_KEEPINTVL", 5, "TCP_KEEPCNT", 6, "TCP_SYNCNT", 7, "TCP_LINGER2", 8, "TCP_DEFER_ACCEPT", 9,
                "TCP_WINDOW_CLAMP", 10, "TCP_INFO", 11, "TCP_QUICKACK", 12, "TCP_CONGESTION", 13, "TCP_MD5SIG", 14,
                "TCP_COOKIE_TRANSACTIONS", 15, "TCP_THIN_LINEAR_TIMEOUTS", 16, "TCP_THIN_DUPACK", 17,
                "TCP_USER_TIMEOUT", 18, "TCP_REPAIR", 19, "TCP_REPAIR_QUEUE", 20, "TCP_QUEUE_SEQ", 21,
                "TCP_REPAIR_OPTIONS", 22, "TCP_FASTOPEN", 23, "TCP_TIMESTAMP", 24, "TCP_NOTSENT_LOWAT", 25,
                "TCP_CC_INFO", 26, "TCP_SAVE_SYN", 27, "TCP_SAVED_SYN", 28, "TCP_REPAIR_WINDOW", 29,
                "TCP_FASTOPEN_CONNECT", 30, "TCP_ULP", 31, "TCP_MD5SIG_EXT", 32, "TCP_FASTOPEN_KEY", 33,
                "TCP_FASTOPEN_NO_COOKIE", 34, "TCP_ZEROCOPY_RECEIVE", 35, "TCP_INQ", 36, "TCP_CM_INQ", 36,
                "TCP_TX_DELAY", 37, "TCP_AO_ADD_KEY", 38, "TCP_AO_DEL_KEY", 39, "TCP_AO_INFO", 40,
                "TCP_AO_GET_KEYS", 41, "TCP_AO_REPAIR", 42, "TCP_IS_MPTCP", 43, "TCP_RTO_MAX_MS", 44,
                "TCP_RTO_MIN_US", 45, "TCP_DELACK_MAX_US", 46);
        def(Group.IP_OPTION, "IP_TOS", 1, "IP_TTL", 2, "IP_HDRINCL", 3, "IP_OPTIONS", 4, "IP_ROUTER_ALERT", 5,
                "IP_RECVOPTS", 6, "IP_RETOPTS", 7, "IP_PKTINFO", 8, "IP_PKTOPTIONS", 9, "IP_MTU_DISCOVER", 10,
                "IP_RECVERR", 11, "IP_RECVTTL", 12, "IP_RECVTOS", 13, "IP_MTU", 14, "IP_FREEBIND", 15,
                "IP_IPSEC_POLICY", 16, "IP_XFRM_POLICY", 17, "IP_PASSSEC", 18, "IP_TRANSPARENT", 19,
                "IP_RECVORIGDSTADDR", 20, "IP_MINTTL", 21, "IP_NODEFRAG", 22, "IP_CHECKSUM", 23,
                "IP_BIND_ADDRESS_NO_PORT", 24, "IP_RECVFRAGSIZE", 25, "IP_RECVERR_RFC4884", 26,
                "IP_MULTICAST_IF", 32, "IP_MULTICAST_TTL", 33, "IP_MULTICAST_LOOP", 34, "IP_ADD_MEMBERSHIP", 35,
                "IP_DROP_MEMBERSHIP", 36, "IP_LOCAL_PORT_RANGE", 51);
        def(Group.IPV6_OPTION, "IPV6_ADDRFORM", 1, "IPV6_UNICAST_HOPS", 16, "IPV6_MULTICAST_IF", 17,
                "IPV6_MULTICAST_HOPS", 18, "IPV6_MULTICAST_LOOP", 19, "IPV6_MTU_DISCOVER", 23, "IPV6_MTU", 24,
                "IPV6_RECVERR", 25, "IPV6_V6ONLY", 26, "IPV6_RECVPKTINFO", 49, "IPV6_PKTINFO", 50,
                "IPV6_RECVHOPLIMIT", 51, "IPV6_HOPLIMIT", 52, "IPV6_RECVTCLASS", 66, "IPV6_TCLASS", 67,
                "IPV6_FLOWLABEL_MGR", 32, "IPV6_FLOWINFO_SEND", 33);
        def(Group.IP_PMTUDISC, "IP_PMTUDISC_DONT", 0, "IP_PMTUDISC_WANT", 1, "IP_PMTUDISC_DO", 2,
                "IP_PMTUDISC_PROBE", 3, "IP_PMTUDISC_INTERFACE", 4, "IP_PMTUDISC_OMIT", 5);
        def(Group.MSG_FLAG, "MSG_OOB", 0x1, "MSG_PEEK", 0x2, "MSG_DONTROUTE", 0x4, "MSG_CTRUNC", 0x8,
                "MSG_PROXY", 0x10, "MSG_PROBE", 0x10, "MSG_TRUNC", 0x20, "MSG_DONTWAIT", 0x40, "MSG_EOR", 0x80,
                "MSG_WAITALL", 0x100, "MSG_FIN", 0x200, "MSG_SYN", 0x400, "MSG_CONFIRM", 0x800, "MSG_RST", 0x1000,
                "MSG_ERRQUEUE", 0x2000, "MSG_NOSIGNAL", 0x4000, "MSG_MORE", 0x8000, "MSG_WAITFORONE", 0x10000,
                "MSG_BATCH", 0x40000, "MSG_SOCK_DEVMEM", 0x2000000, "MSG_ZEROCOPY", 0x4000000,
                "MSG_FASTOPEN", 0x20000000, "MSG_CMSG_CLOEXEC", 0x40000000);
        def(Group.POLL_BIT, "POLLIN", 0x1, "POLLPRI", 0x2, "POLLOUT", 0x4, "POLLERR", 0x8, "POLLHUP", 0x10,
                "POLLNVAL", 0x20, "POLLRDNORM", 0x40, "POLLRDBAND", 0x80, "POLLWRNORM", 0x100, "POLLWRBAND", 0x200,
                "POLLMSG", 0x400, "POLLREMOVE", 0x1000, "POLLRDHUP", 0x2000);
        def(Group.EPOLL_BIT, "EPOLLIN", 0x1, "EPOLLPRI", 0x2, "EPOLLOUT", 0x4, "EPOLLERR", 0x8, "EPOLLHUP", 0x10,
                "EPOLLNVAL", 0x20, "EPOLLRDNORM", 0x40, "EPOLLRDBAND", 0x80, "EPOLLWRNORM", 0x100,
                "EPOLLWRBAND", 0x200, "EPOLLMSG", 0x400, "EPOLLRDHUP", 0x2000, "EPOLLEXCLUSIVE", 1L << 28,
                "EPOLLWAKEUP", 1L << 29, "EPOLLONESHOT", 1L << 30, "EPOLLET", 1L << 31);
        def(Group.EPOLL_CTL, "EPOLL_CTL_ADD", 1, "EPOLL_CTL_DEL", 2, "EPOLL_CTL_MOD", 3);
        def(Group.EPOLL_FLAG, "EPOLL_CLOEXEC", 02000000);
        def(Group.OPEN_FLAG, "O_RDONLY", 0, "O_WRONLY", 1, "O_RDWR", 2, "O_ACCMODE", 3, "O_CREAT", 0100,
                "O_EXCL", 0200, "O_NOCTTY", 0400, "O_TRUNC", 01000, "O_APPEND", 02000, "O_NONBLOCK", 04000,
                "O_NDELAY", 04000, "O_DSYNC", 010000, "O_ASYNC", 020000, "O_DIRECT", 040000,
                "O_DIRECTORY", 0200000, "O_NOFOLLOW", 0400000, "O_NOATIME", 01000000, "O_CLOEXEC", 02000000);
        def(Group.FCNTL_COMMAND, "F_DUPFD", 0, "F_GETFD", 1, "F_SETFD", 2, "F_GETFL", 3, "F_SETFL", 4,
                "F_GETLK", 5, "F_SETLK", 6, "F_SETLKW", 7, "F_SETOWN", 8, "F_GETOWN", 9, "F_SETSIG", 10,
                "F_GETSIG", 11, "F_GETLK64", 5, "F_SETLK64", 6, "F_SETLKW64", 7, "F_SETLEASE", 1024,
                "F_GETLEASE", 1025, "F_NOTIFY", 1026, "F_DUPFD_CLOEXEC", 1030, "F_SETPIPE_SZ", 1031,
                "F_GETPIPE_SZ", 1032);
        def(Group.FD_FLAG, "FD_CLOEXEC", 1);
        def(Group.IOCTL_REQUEST, "FIONREAD", 0x541B, "SIOCINQ", 0x541B, "TIOCOUTQ", 0x5411, "SIOCOUTQ", 0x5411,
                "FIONBIO", 0x5421, "SIOCOUTQNSD", 0x894B, "SIOCATMARK", 0x8905, "SIOCGSTAMP", 0x8906);
        def(Group.SHUTDOWN_HOW, "SHUT_RD", 0, "SHUT_WR", 1, "SHUT_RDWR", 2);
        def(Group.TCP_STATE, "TCP_ESTABLISHED", 1, "TCP_SYN_SENT", 2, "TCP_SYN_RECV", 3, "TCP_FIN_WAIT1", 4,
                "TCP_FIN_WAIT2", 5, "TCP_TIME_WAIT", 6, "TCP_CLOSE", 7, "TCP_CLOSE_WAIT", 8, "TCP_LAST_ACK", 9,
                "TCP_LISTEN", 10, "TCP_CLOSING", 11, "TCP_NEW_SYN_RECV", 12, "TCP_BOUND_INACTIVE", 13);
        def(Group.TCP_CA_STATE, "TCP_CA_Open", 0, "TCP_CA_Disorder", 1, "TCP_CA_CWR", 2, "TCP_CA_Recovery", 3,
                "TCP_CA_Loss", 4, "TCP_CA_OPEN", 0, "TCP_CA_DISORDER", 1, "TCP_CA_RECOVERY", 3, "TCP_CA_LOSS", 4);
        def(Group.TCPI_OPTION, "TCPI_OPT_TIMESTAMPS", 1, "TCPI_OPT_SACK", 2, "TCPI_OPT_WSCALE", 4,
                "TCPI_OPT_ECN", 8, "TCPI_OPT_ECN_SEEN", 16, "TCPI_OPT_SYN_DATA", 32, "TCPI_OPT_USEC_TS", 64,
                "TCPI_OPT_TFO_CHILD", 128);
        def(Group.TCPI_ECN_MODE, "TCPI_ECN_MODE_DISABLED", 0, "TCPI_ECN_MODE_RFC3168", 1,
                "TCPI_ECN_MODE_ACCECN", 2, "TCPI_ECN_MODE_PENDING", 3);
        def(Group.TCP_REPAIR_MODE, "TCP_REPAIR_ON", 1, "TCP_REPAIR_OFF", 0, "TCP_REPAIR_OFF_NO_WP", -1);
        def(Group.TIMESTAMPING_FLAG, "SOF_TIMESTAMPING_TX_HARDWARE", 1, "SOF_TIMESTAMPING_TX_SOFTWARE", 1 << 1,
                "SOF_TIMESTAMPING_RX_HARDWARE", 1 << 2, "SOF_TIMESTAMPING_RX_SOFTWARE", 1 << 3,
                "SOF_TIMESTAMPING_SOFTWARE", 1 << 4, "SOF_TIMESTAMPING_SYS_HARDWARE", 1 << 5,
                "SOF_TIMESTAMPING_RAW_HARDWARE", 1 << 6, "SOF_TIMESTAMPING_OPT_ID", 1 << 7,
                "SOF_TIMESTAMPING_TX_SCHED", 1 << 8, "SOF_TIMESTAMPING_TX_ACK", 1 << 9,
                "SOF_TIMESTAMPING_OPT_CMSG", 1 << 10, "SOF_TIMESTAMPING_OPT_TSONLY", 1 << 11,
                "SOF_TIMESTAMPING_OPT_STATS", 1 << 12, "SOF_TIMESTAMPING_OPT_PKTINFO", 1 << 13,
                "SOF_TIMESTAMPING_OPT_TX_SWHW", 1 << 14, "SOF_TIMESTAMPING_BIND_PHC", 1 << 15,
                "SOF_TIMESTAMPING_OPT_ID_TCP", 1 << 16);
        def(Group.SCM_TYPE, "SCM_RIGHTS", 1, "SCM_CREDENTIALS", 2, "SCM_TIMESTAMP", 29, "SCM_TIMESTAMPNS", 35,
                "SCM_TIMESTAMPING", 37, "SCM_TIMESTAMPING_OPT_STATS", 54, "SCM_TIMESTAMPING_PKTINFO", 58,
                "SCM_TSTAMP_SND", 0, "SCM_TSTAMP_SCHED", 1, "SCM_TSTAMP_ACK", 2);
        def(Group.ERRQUEUE_ORIGIN, "SO_EE_ORIGIN_NONE", 0, "SO_EE_ORIGIN_LOCAL", 1, "SO_EE_ORIGIN_ICMP", 2,
                "SO_EE_ORIGIN_ICMP6", 3, "SO_EE_ORIGIN_TXSTATUS", 4, "SO_EE_ORIGIN_TIMESTAMPING", 4,
                "SO_EE_ORIGIN_ZEROCOPY", 5, "SO_EE_ORIGIN_TXTIME", 6);
        def(Group.ERRQUEUE_CODE, "SO_EE_CODE_ZEROCOPY_COPIED", 1);
        def(Group.TCP_NLA, "TCP_NLA_PAD", 0, "TCP_NLA_BUSY", 1, "TCP_NLA_RWND_LIMITED", 2,
                "TCP_NLA_SNDBUF_LIMITED", 3, "TCP_NLA_DATA_SEGS_OUT", 4, "TCP_NLA_TOTAL_RETRANS", 5,
                "TCP_NLA_PACING_RATE", 6, "TCP_NLA_DELIVERY_RATE", 7, "TCP_NLA_SND_CWND", 8,
                "TCP_NLA_REORDERING", 9, "TCP_NLA_MIN_RTT", 10, "TCP_NLA_RECUR_RETRANS", 11,
                "TCP_NLA_DELIVERY_RATE_APP_LMT", 12, "TCP_NLA_SNDQ_SIZE", 13, "TCP_NLA_CA_STATE", 14,
                "TCP_NLA_SND_SSTHRESH", 15, "TCP_NLA_DELIVERED", 16, "TCP_NLA_DELIVERED_CE", 17,
                "TCP_NLA_BYTES_SENT", 18, "TCP_NLA_BYTES_RETRANS", 19, "TCP_NLA_DSACK_DUPS", 20,
                "TCP_NLA_REORD_SEEN", 21, "TCP_NLA_SRTT", 22, "TCP_NLA_TIMEOUT_REHASH", 23,
                "TCP_NLA_BYTES_NOTSENT", 24, "TCP_NLA_EDT", 25, "TCP_NLA_TTL", 26, "TCP_NLA_REHASH", 27);
        def(Group.SPLICE_FLAG, "SPLICE_F_MOVE", 1, "SPLICE_F_NONBLOCK", 2, "SPLICE_F_MORE", 4, "SPLICE_F_GIFT", 8);
        def(Group.LIMIT, "TCP_INFINITE_SSTHRESH", 0x7fffffff);
        for (Map.Entry<Group, List<Symbol>> e : BY_GROUP.entrySet()) e.setValue(Collections.unmodifiableList(e.getValue()));
    }

    private LinuxConstants() {}

    private static void def(Group group, Object... nameValue) {
        List<Symbol> list = BY_GROUP.computeIfAbsent(group, k -> new ArrayList<>());
        for (int i = 0; i < nameValue.length; i += 2) {
            String name = (String) nameValue[i];
            long value = ((Number) nameValue[i + 1]).longValue();
            Symbol s = new Symbol(name, value, group);
            if (BY_NAME.putIfAbsent(name, s) != null) throw new ExceptionInInitializerError("duplicate symbol " + name);
            list.add(s);
        }
    }

    /**
     * The value of {@code symbol} ({@code "SO_REUSEADDR"} gives 2), or empty when this table does not know it.
     * Errno names resolve through {@link LinuxErrno}.
     */
    public static OptionalLong value(String symbol) {
        Symbol s = BY_NAME.get(Objects.requireNonNull(symbol, "symbol"));
        if (s != null) return OptionalLong.of(s.value());
        int errno = LinuxErrno.number(symbol);
        return errno >= 0 ? OptionalLong.of(errno) : OptionalLong.empty();
    }

    /**
     * The value of {@code symbol}.
     *
     * @throws IllegalArgumentException when this table does not know it
     */
    public static long require(String symbol) {
        return value(symbol).orElseThrow(() -> new IllegalArgumentException("unknown Linux symbol: " + symbol));
    }

    /** The group {@code symbol} belongs to, or null when unknown (or an errno name). */
    public static Group groupOf(String symbol) {
        Symbol s = BY_NAME.get(symbol);
        return s == null ? null : s.group();
    }

    /** Every symbol this table knows with its value, in definition order (errno names excluded). */
    public static Map<String, Long> all() {
        Map<String, Long> m = new LinkedHashMap<>();
        BY_NAME.forEach((k, v) -> m.put(k, v.value()));
        return Collections.unmodifiableMap(m);
    }

    /**
     * The first name of {@code value} in {@code group} ({@code TCP_CLOSE} for 7 among {@link Group#TCP_STATE}), or
     * the number in decimal when none matches.
     */
    public static String name(Group group, long value) {
        for (Symbol s : BY_GROUP.getOrDefault(group, List.of())) {
            if (s.value() == value) return s.name();
        }
        return Long.toString(value);
    }

    /**
     * The option's name at {@code level} ({@code TCP_INFO} for SOL_TCP 11, {@code SO_ERROR} for SOL_SOCKET 4), or the
     * number when unknown.
     */
    public static String optionName(int level, int option) {
        Group group = switch (level) {
            case 1 -> Group.SOCKET_OPTION;
            case 6 -> Group.TCP_OPTION;
            case 0 -> Group.IP_OPTION;
            case 41 -> Group.IPV6_OPTION;
            default -> null;
        };
        return group == null ? Integer.toString(option) : name(group, option);
    }

    /**
     * A bit mask as the names of its bits joined by {@code |} ({@code POLLIN|POLLOUT} for 5 among
     * {@link Group#POLL_BIT}); bits without a name are shown as one hexadecimal rest ({@code POLLIN|0x100000});
     * {@code 0} for no bits. Only single-bit symbols of the group are used.
     */
    public static String flags(Group group, long mask) {
        if (mask == 0) return "0";
        StringBuilder sb = new StringBuilder();
        long rest = mask;
        for (Symbol s : BY_GROUP.getOrDefault(group, List.of())) {
            long v = s.value();
            if (Long.bitCount(v) == 1 && (rest & v) != 0) {
                if (!sb.isEmpty()) sb.append('|');
                sb.append(s.name());
                rest &= ~v;
            }
        }
        if (rest != 0) {
            if (!sb.isEmpty()) sb.append('|');
            sb.append("0x").append(Long.toHexString(rest));
        }
        return sb.toString();
    }
}
