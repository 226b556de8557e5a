package io.jnet.stack;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sysctl registry of a jnet namespace, with Linux's names, units and defaults (Linux 6.x).
 * Fields give the packet path direct access; {@link #set(String, String)} and {@link #get(String)}
 * take the dotted names ({@code net.ipv4.tcp_timestamps}) or the /proc/sys path form.
 */
public final class Sysctls {
    private final Map<String, Sysctl> byName = new LinkedHashMap<>();

    // net.core
    public final Sysctl busyRead = reg("net.core.busy_read", "us", "how long a blocked read spins for data before it sleeps; a new socket's SO_BUSY_POLL", 0, Integer.MAX_VALUE, 0);
    public final Sysctl busyPoll = reg("net.core.busy_poll", "us", "how long a poller wait spins for ready events before it sleeps; the busy-poll time Poller.open(ns) starts at", 0, Integer.MAX_VALUE, 0);
    public final Sysctl somaxconn = reg("net.core.somaxconn", "count", "cap on listen() backlog", 0, 65535, 4096);
    public final Sysctl rmemMax = reg("net.core.rmem_max", "bytes", "cap on SO_RCVBUF", 2048, Integer.MAX_VALUE / 2, 212992);
    public final Sysctl wmemMax = reg("net.core.wmem_max", "bytes", "cap on SO_SNDBUF", 2048, Integer.MAX_VALUE / 2, 212992);
    public final Sysctl rmemDefault = reg("net.core.rmem_default", "bytes", "default receive buffer of non-TCP sockets", 2048, Integer.MAX_VALUE / 2, 212992);
    public final Sysctl wmemDefault = reg("net.core.wmem_default", "bytes", "default send buffer of non-TCP sockets", 2048, Integer.MAX_VALUE / 2, 212992);
    public final Sysctl netdevMaxBacklog = reg("net.core.netdev_max_backlog", "count", "frames queued per receive backlog before drops", 1, 1 << 24, 1000);

    // net.ipv4 (IP)
    public final Sysctl ipDefaultTtl = reg("net.ipv4.ip_default_ttl", "count", "TTL of sent packets", 1, 255, 64);
    public final Sysctl ipLocalPortRange = regAsc("net.ipv4.ip_local_port_range", "port", "ephemeral port range (RFC 6056)", 1, 65535, 32768, 60999);
    public final Sysctl ipfragHighThresh = reg("net.ipv4.ipfrag_high_thresh", "bytes", "memory for fragment queues before new fragments are dropped", 0, Integer.MAX_VALUE, 4194304);
    public final Sysctl ipfragLowThresh = reg("net.ipv4.ipfrag_low_thresh", "bytes", "reassembly memory after eviction", 0, Integer.MAX_VALUE, 3145728);
    public final Sysctl ipfragTime = reg("net.ipv4.ipfrag_time", "seconds", "how long a fragment queue waits for its missing pieces", 1, 3600, 30);
    public final Sysctl ipRouteMinPmtu = reg("net.ipv4.route.min_pmtu", "bytes", "least path MTU an ICMP fragmentation-needed may set; a lower one sets this (__ip_rt_update_pmtu)", 68, 65535, 552);
    public final Sysctl ipEarlyDemux = reg("net.ipv4.ip_early_demux", "boolean", "look up established sockets at IP receive", 0, 1, 1);
    public final Sysctl ipForward = reg("net.ipv4.ip_forward", "boolean", "forward packets not addressed to this namespace; a write sets conf.all, conf.default and every device's forwarding", 0, 1, 0);
    public final Sysctl confAllForwarding = reg("net.ipv4.conf.all.forwarding", "boolean", "as net.ipv4.ip_forward (a write sets ip_forward, conf.default and every device's forwarding)", 0, 1, 0);
    public final Sysctl confDefaultForwarding = reg("net.ipv4.conf.default.forwarding", "boolean", "forwarding of devices attached later", 0, 1, 0);
    public final Sysctl confAllRpFilter = reg("net.ipv4.conf.all.rp_filter", "enum", "reverse path filter of every device (the larger of this and the device's applies): 0 off, 1 strict (RFC 3704 strict), 2 loose", 0, 2, 0);
    public final Sysctl confDefaultRpFilter = reg("net.ipv4.conf.default.rp_filter", "enum", "rp_filter of devices attached later", 0, 2, 0);
    public final Sysctl confAllSendRedirects = reg("net.ipv4.conf.all.send_redirects", "boolean", "send ICMP redirects on every device (either this or the device's switch enables them)", 0, 1, 1);
    public final Sysctl confDefaultSendRedirects = reg("net.ipv4.conf.default.send_redirects", "boolean", "send_redirects of devices attached later", 0, 1, 1);
    public final Sysctl icmpEchoIgnoreAll = reg("net.ipv4.icmp_echo_ignore_all", "boolean", "do not answer echo requests", 0, 1, 0);
    public final Sysctl icmpRatelimit = reg("net.ipv4.icmp_ratelimit", "ms", "minimum gap between ICMP errors to one destination (token bucket)", 0, Integer.MAX_VALUE, 1000);
    public final Sysctl icmpMsgsPerSec = reg("net.ipv4.icmp_msgs_per_sec", "count", "global ICMP error rate limit", 0, Integer.MAX_VALUE, 1000);

    // ARP / neighbour
    public final Sysctl neighRetransTimeMs = reg("net.ipv4.neigh.default.retrans_time_ms", "ms", "interval between ARP requests", 10, 3600_000, 1000);
    public final Sysctl neighMcastSolicit = reg("net.ipv4.neigh.default.mcast_solicit", "count", "broadcast ARP requests before a neighbour fails", 0, 255, 3);
    public final Sysctl neighBaseReachableTimeMs = reg("net.ipv4.neigh.default.base_reachable_time_ms", "ms", "how long a confirmed neighbour stays REACHABLE", 10, 3600_000, 30000);
    public final Sysctl neighUnresQlenBytes = reg("net.ipv4.neigh.default.unres_qlen_bytes", "bytes", "bytes queued per unresolved neighbour", 0, Integer.MAX_VALUE, 212992);
    public final Sysctl neighGcStaleTime = reg("net.ipv4.neigh.default.gc_stale_time", "seconds", "unused entries older than this are removed", 1, 86400, 60);

    // TCP
    public final Sysctl tcpRmem = regAsc("net.ipv4.tcp_rmem", "bytes", "receive buffer min, default, max (autotuning range)", 1, Integer.MAX_VALUE / 2, 4096, 131072, 6291456);
    public final Sysctl tcpTxSkbCache = reg("net.ipv4.tcp_tx_skb_cache", "boolean", "keep one acknowledged write-queue buffer per socket for its next write (Linux 5.1 to 5.14)", 0, 1, 0);
    public final Sysctl tcpRxSkbCache = reg("net.ipv4.tcp_rx_skb_cache", "boolean", "keep the buffer a reader consumed on its socket until the receive path frees it with the next segment (Linux 5.1 to 5.14)", 0, 1, 0);
    public final Sysctl tcpFriends = reg("net.ipv4.tcp_friends", "boolean", "pair new loopback connections whose two ends are sockets of this namespace: data goes straight to the peer's receive queue", 0, 1, 0);

    // net.rds.tcp (Linux's rds_tcp module parameters under /proc/sys/net/rds/tcp)
    public final Sysctl rdsTcpSndbuf = reg("net.rds.tcp.rds_tcp_sndbuf", "bytes", "send buffer of new RDS-over-TCP sockets, exactly these bytes (not doubled as SO_SNDBUF, as Linux rds_tcp_tune; at least 4608), autotuning off; 0 leaves the TCP default and autotuning", 0, Integer.MAX_VALUE / 2, 0);
    public final Sysctl rdsTcpRcvbuf = reg("net.rds.tcp.rds_tcp_rcvbuf", "bytes", "receive buffer of new RDS-over-TCP sockets, exactly these bytes (not doubled as SO_RCVBUF, as Linux rds_tcp_tune; at least 2304), autotuning off; 0 leaves the TCP default and autotuning", 0, Integer.MAX_VALUE / 2, 0);
    public final Sysctl rdsTcpJnetAcceptIdleTimeoutMs = reg("net.rds.tcp.jnet_accept_idle_timeout_ms", "ms", "an accepted RDS-over-TCP connection on which the peer sent nothing for this long is reset (jnet_s_tcp_accept_idle_reaped; an RDS peer sends its congestion map at once); 0 never (Linux keeps it)", 0, Integer.MAX_VALUE, 30000);
    public final Sysctl rdsTcpJnetMsgMore = reg("net.rds.tcp.jnet_msg_more", "boolean", "RDS over TCP sends all but the last 4 KiB fragment of a message of several with MSG_MORE | MSG_SENDPAGE_NOTLAST (Linux since 4.4), so TCP builds full-sized segments from them; 0 never does, for comparison", 0, 1, 1);
    /**
     * net.ipv4.tcp_mem, pages of 4096 bytes: min (below it, memory pressure ends), pressure (above it, pressure
     * begins), max (hard limit: no socket gets more beyond its minimum buffers); see io.jnet.tcp.TcpMemory. The
     * default is Linux's tcp_init_mem with the JVM's maximum heap standing for the machine's free buffer pages:
     * limit = heap pages / 16 (at least 128), min = limit / 4 * 3, pressure = limit, max = min * 2.
     */
    public final Sysctl tcpMem = reg("net.ipv4.tcp_mem", "pages", "TCP memory of the namespace in 4096-byte pages: min (pressure ends below), pressure (begins above), max (hard limit); default as Linux tcp_init_mem with the JVM max heap as the free buffer pages (limit = heap pages/16, at least 128; min = limit/4*3, pressure = limit, max = min*2)", 1, Integer.MAX_VALUE, defaultTcpMem());
    public final Sysctl tcpWmem = regAsc("net.ipv4.tcp_wmem", "bytes", "send buffer min, default, max", 1, Integer.MAX_VALUE / 2, 4096, 16384, 4194304);
    /**
     * The congestion control new connections start with, by name (Linux's default is cubic; jnet has Reno only,
     * RFC 5681 with the RFC 6582 NewReno recovery, until its congestion-control interface arrives).
     */
    public final Sysctl tcpCongestionControl = put(new Sysctl("net.ipv4.tcp_congestion_control",
            "congestion control of new connections, by name (only reno so far)", new String[] {"reno"}, 0));
    public final Sysctl tcpTimestamps = reg("net.ipv4.tcp_timestamps", "enum", "RFC 7323 timestamps: 0 off, 1 on with random offset, 2 on without offset", 0, 2, 1);
    public final Sysctl tcpSack = reg("net.ipv4.tcp_sack", "boolean", "RFC 2018 selective acknowledgements: offer SACK-permitted on SYN and SYN-ACK and use SACK when both ends do", 0, 1, 1);
    public final Sysctl tcpDsack = reg("net.ipv4.tcp_dsack", "boolean", "RFC 2883 duplicate SACK: report duplicate segments received in the first SACK block", 0, 1, 1);
    public final Sysctl tcpRecovery = reg("net.ipv4.tcp_recovery", "enum", "loss detection (Linux tcp_recovery): 0x1 RACK (RFC 8985 time-based loss marking, in place of the RFC 6675 DupThresh rule), 0x2 static reordering window (no D-SACK adaptation), 0x4 no DupThresh shortcut for the window before reordering is seen", 0, 7, 1);
    public final Sysctl tcpFrto = reg("net.ipv4.tcp_frto", "enum", "F-RTO (RFC 5682, SACK-enhanced as Linux): detect spurious retransmission timeouts and undo them; 0 off, 1 or 2 on (jnet runs it with SACK only)", 0, 2, 2);
    public final Sysctl tcpReordering = reg("net.ipv4.tcp_reordering", "segments", "initial reordering degree of a connection, segments (Linux tp->reordering, TCP_INFO tcpi_reordering)", 1, 300, 3);
    public final Sysctl tcpMaxReordering = reg("net.ipv4.tcp_max_reordering", "segments", "cap on a connection's reordering degree, segments", 1, 1 << 20, 300);
    public final Sysctl tcpEarlyRetrans = reg("net.ipv4.tcp_early_retrans", "enum", "tail loss probe (RFC 8985 section 7) with SACK: 3 or 4 on, 0-2 off (jnet has no early retransmit of its own, as Linux since 4.11)", 0, 4, 3);
    public final Sysctl tcpWindowScaling = reg("net.ipv4.tcp_window_scaling", "boolean", "RFC 7323 window scaling", 0, 1, 1);
    public final Sysctl tcpFinTimeout = reg("net.ipv4.tcp_fin_timeout", "seconds", "FIN-WAIT-2 lifetime of orphaned sockets", 1, 86400, 60);
    public final Sysctl tcpSynRetries = reg("net.ipv4.tcp_syn_retries", "count", "SYN retransmissions before connect fails with ETIMEDOUT", 1, 127, 6);
    public final Sysctl tcpSynLinearTimeouts = reg("net.ipv4.tcp_syn_linear_timeouts", "count", "the first this many SYN retransmissions of a connect keep the initial RTO (1 s) instead of doubling it (Linux 6.x); they count on top of tcp_syn_retries", 0, 127, 4);
    public final Sysctl tcpSynackRetries = reg("net.ipv4.tcp_synack_retries", "count", "SYN-ACK retransmissions before a pending connection is dropped", 1, 255, 5);
    public final Sysctl tcpRetries2 = reg("net.ipv4.tcp_retries2", "count", "RTO retransmissions before an established connection fails with ETIMEDOUT", 1, 255, 15);
    public final Sysctl tcpOrphanRetries = reg("net.ipv4.tcp_orphan_retries", "count", "retries for orphaned sockets (0 means 8)", 0, 255, 0);
    public final Sysctl tcpTwReuse = reg("net.ipv4.tcp_tw_reuse", "enum", "reuse TIME-WAIT ports for new outgoing connections when timestamps prove safety: 0 off, 1 on, 2 loopback only", 0, 2, 2);
    public final Sysctl tcpRfc1337 = reg("net.ipv4.tcp_rfc1337", "boolean", "TIME-WAIT ignores RSTs (RFC 1337 fix TW1) instead of ending early (0, Linux default)", 0, 1, 0);
    public final Sysctl tcpTwReuseDelay = reg("net.ipv4.tcp_tw_reuse_delay", "ms", "how long a TIME-WAIT tuple must be idle (since its last timestamp) before tcp_tw_reuse may take it", 1, 600000, 1000);
    public final Sysctl tcpMaxTwBuckets = reg("net.ipv4.tcp_max_tw_buckets", "count", "TIME-WAIT sockets kept at most", 0, Integer.MAX_VALUE, 262144);
    public final Sysctl tcpMaxSynBacklog = reg("net.ipv4.tcp_max_syn_backlog", "count", "pending (SYN-RECEIVED) connections per listener at most", 1, 1 << 24, 4096);
    public final Sysctl tcpSyncookies = reg("net.ipv4.tcp_syncookies", "enum", "answer SYNs with SYN cookies when the SYN queue is full (1), always (2), never (0)", 0, 2, 1);
    public final Sysctl tcpAbortOnOverflow = reg("net.ipv4.tcp_abort_on_overflow", "boolean", "reset instead of dropping when the accept queue is full", 0, 1, 0);
    public final Sysctl tcpMinSndMss = reg("net.ipv4.tcp_min_snd_mss", "bytes", "floor applied to the peer's advertised MSS", 48, 65535, 48);
    public final Sysctl tcpRtoMinUs = reg("net.ipv4.tcp_rto_min_us", "us", "minimum retransmission timeout", 1000, Integer.MAX_VALUE, 200000);
    public final Sysctl tcpDelackMinMs = reg("net.ipv4.tcp_delack_min_ms", "ms", "minimum delayed-ACK timeout (Linux TCP_DELACK_MIN)", 1, 1000, 40);
    public final Sysctl tcpDelackMaxMs = reg("net.ipv4.tcp_delack_max_ms", "ms", "maximum delayed-ACK timeout (Linux TCP_DELACK_MAX)", 1, 5000, 200);
    public final Sysctl tcpInvalidRatelimit = reg("net.ipv4.tcp_invalid_ratelimit", "ms", "minimum gap between duplicate ACKs sent for out-of-window segments", 0, Integer.MAX_VALUE, 500);
    public final Sysctl tcpChallengeAckLimit = reg("net.ipv4.tcp_challenge_ack_limit", "count", "RFC 5961 challenge ACKs per second for the whole namespace, about (a random count in [limit / 2, limit * 3 / 2) each second); INT_MAX, the Linux 6.0+ default, leaves only the per-socket tcp_invalid_ratelimit", 0, Integer.MAX_VALUE, Integer.MAX_VALUE);
    public final Sysctl tcpKeepaliveTime = reg("net.ipv4.tcp_keepalive_time", "seconds", "idle time before the first keepalive probe", 1, 32767, 7200);
    public final Sysctl tcpKeepaliveIntvl = reg("net.ipv4.tcp_keepalive_intvl", "seconds", "interval between keepalive probes", 1, 32767, 75);
    public final Sysctl tcpKeepaliveProbes = reg("net.ipv4.tcp_keepalive_probes", "count", "unanswered probes before the connection is dropped", 1, 127, 9);
    public final Sysctl tcpModerateRcvbuf = reg("net.ipv4.tcp_moderate_rcvbuf", "boolean", "receive buffer autotuning", 0, 1, 1);
    public final Sysctl tcpSlowStartAfterIdle = reg("net.ipv4.tcp_slow_start_after_idle", "boolean", "collapse cwnd after an idle RTO (RFC 5681 4.1)", 0, 1, 1);
    public final Sysctl tcpEarlyDemux = reg("net.ipv4.tcp_early_demux", "boolean", "early demux for TCP", 0, 1, 1);
    public final Sysctl tcpPacingSsRatio = reg("net.ipv4.tcp_pacing_ss_ratio", "percent", "pacing rate in slow start, percent of cwnd * mss / srtt (reported in TCP_INFO; jnet does not pace)", 0, 1000, 200);
    public final Sysctl tcpPacingCaRatio = reg("net.ipv4.tcp_pacing_ca_ratio", "percent", "pacing rate in congestion avoidance, percent of cwnd * mss / srtt", 0, 1000, 120);
    public final Sysctl tcpMinRttWlen = reg("net.ipv4.tcp_min_rtt_wlen", "seconds", "window of the minimum-RTT filter (TCP_INFO min_rtt)", 0, 86400, 300);
    public final Sysctl tcpStdurg = reg("net.ipv4.tcp_stdurg", "boolean", "how a received urgent pointer is read: 0 points one past the urgent byte (BSD, as most hosts send it; RFC 6093), 1 at it (RFC 1122); sent pointers are BSD's either way", 0, 1, 0);
    public final Sysctl tcpAdvWinScale = reg("net.ipv4.tcp_adv_win_scale", "count", "share of the receive buffer advertised as window (1: half)", -31, 31, 1);

    // UDP
    public final Sysctl udpEarlyDemux = reg("net.ipv4.udp_early_demux", "boolean", "early demux for connected UDP", 0, 1, 1);
    public final Sysctl udpRmemMin = reg("net.ipv4.udp_rmem_min", "bytes", "minimum UDP receive buffer", 1, Integer.MAX_VALUE, 4096);

    /**
     * A device's {@code net.ipv4.conf.<dev>} sysctls (Linux's per-device ipv4_devconf).
     *
     * @param forwarding {@code net.ipv4.conf.<dev>.forwarding}: packets received on the device may be forwarded
     * @param rpFilter {@code net.ipv4.conf.<dev>.rp_filter}: 0 off, 1 strict, 2 loose (the larger of this and
     *     {@code conf.all.rp_filter} applies)
     * @param sendRedirects {@code net.ipv4.conf.<dev>.send_redirects}: ICMP redirects for packets forwarded back
     *     out the device they came in on (on when this or {@code conf.all.send_redirects} is on)
     */
    public record DeviceConf(String device, Sysctl forwarding, Sysctl rpFilter, Sysctl sendRedirects) {
        /** Linux IN_DEV_TX_REDIRECTS: conf.all or conf.dev send_redirects. */
        public boolean txRedirects(Sysctls all) { return all.confAllSendRedirects.enabled() || sendRedirects.enabled(); }

        /** The reverse path filter mode in force for the device: max(conf.all, conf.dev), as Linux's IN_DEV_RPFILTER. */
        public int effectiveRpFilter(Sysctls all) { return Math.max(all.confAllRpFilter.intValue(), rpFilter.intValue()); }
    }

    private final java.util.List<DeviceConf> devices = new java.util.concurrent.CopyOnWriteArrayList<>();

    {
        // Linux devinet_sysctl_forward / ipv4_sysctl_forward -> inet_forward_change: ip_forward and
        // conf.all.forwarding are one switch, and a write sets conf.default and every device too
        ipForward.onWrite(() -> forwardChange(ipForward.intValue()));
        confAllForwarding.onWrite(() -> forwardChange(confAllForwarding.intValue()));
    }

    private synchronized void forwardChange(int on) {
        ipForward.store(on);
        confAllForwarding.store(on);
        confDefaultForwarding.store(on);
        for (DeviceConf d : devices) d.forwarding().store(on);
    }

    /**
     * Registers {@code net.ipv4.conf.<dev>.forwarding} and {@code .rp_filter} for a newly attached device,
     * starting from the {@code conf.default} values (as Linux does for a new device).
     *
     * @throws IllegalArgumentException when the device's sysctls exist already
     */
    public synchronized DeviceConf registerDevice(String dev) {
        String base = "net.ipv4.conf." + dev + ".";
        if (dev.equals("all") || dev.equals("default") || byName.containsKey(base + "forwarding"))
            throw new IllegalArgumentException("device sysctls exist: " + base + "*");
        Sysctl fwd = put(new Sysctl(base + "forwarding", "boolean", "forward packets received on " + dev, 0, 1, false,
                0));
        fwd.store(confDefaultForwarding.intValue());
        Sysctl rp = put(new Sysctl(base + "rp_filter", "enum", "reverse path filter on " + dev + ": 0 off, 1 strict, 2 loose", 0, 2, false, 0));
        rp.store(confDefaultRpFilter.intValue());
        Sysctl redir = put(new Sysctl(base + "send_redirects", "boolean", "send ICMP redirects on " + dev, 0, 1, false, 1));
        redir.store(confDefaultSendRedirects.intValue());
        DeviceConf d = new DeviceConf(dev, fwd, rp, redir);
        devices.add(d);
        return d;
    }

    /**
     * The default of net.ipv4.tcp_mem in pages of 4096 bytes, as Linux's tcp_init_mem with the JVM's maximum heap
     * ({@link Runtime#maxMemory()}) standing for the machine's free buffer pages (nr_free_buffer_pages):
     * limit = heap pages / 16, at least 128; min = limit / 4 * 3, pressure = limit, max = min * 2.
     */
    public static int[] defaultTcpMem() {
        long heapPages = Runtime.getRuntime().maxMemory() >> 12;
        long limit = Math.min(Math.max(heapPages / 16, 128), Integer.MAX_VALUE / 2);
        int min = (int) (limit / 4 * 3);
        return new int[] {min, (int) limit, min * 2};
    }

    private Sysctl reg(String name, String unit, String desc, long min, long max, int... def) {
        return put(new Sysctl(name, unit, desc, min, max, false, def));
    }

    private Sysctl regAsc(String name, String unit, String desc, long min, long max, int... def) {
        return put(new Sysctl(name, unit, desc, min, max, true, def));
    }

    private Sysctl put(Sysctl s) {
        byName.put(s.name(), s);
        return s;
    }

    /** Registers a sysctl of a later feature (e.g. net.ipv4.tcp_friends). */
    public synchronized Sysctl register(String name, String unit, String desc, long min, long max, int... def) {
        Sysctl existing = byName.get(name);
        if (existing != null) return existing;
        return put(new Sysctl(name, unit, desc, min, max, false, def));
    }

    private static String normalize(String name) {
        String n = name.trim();
        if (n.startsWith("/proc/sys/")) n = n.substring("/proc/sys/".length());
        return n.replace('/', '.');
    }

    /** The sysctl by name; throws IllegalArgumentException (ENOENT) for an unknown one. */
    public Sysctl lookup(String name) {
        Sysctl s = byName.get(normalize(name));
        if (s == null) throw new IllegalArgumentException("unknown sysctl: " + name);
        return s;
    }

    public String get(String name) { return lookup(name).get(); }

    /** Sets from text; throws IllegalArgumentException for unknown names or invalid values. */
    public void set(String name, String value) { lookup(name).set(value); }

    public Collection<Sysctl> all() { return Collections.unmodifiableCollection(byName.values()); }

    /** Every sysctl as {@code sysctl -a} prints it. */
    public String dump() {
        StringBuilder sb = new StringBuilder();
        for (Sysctl s : byName.values()) sb.append(s.name()).append(" = ").append(s.get()).append('\n');
        return sb.toString();
    }
}
