package io.jnet.tcp;

import io.jnet.buffer.SendFileWindow;
import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketQueue;
import io.jnet.buffer.PayloadRegion;
import io.jnet.ip.DstCache;
import io.jnet.ip.Route;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.Events;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.SockLock;
import io.jnet.stack.Timer;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import io.jnet.wire.TcpOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One TCP connection: the transmission control block (RFC 9293 3.3.1 variables under their RFC names)
 * and the socket calls on it. Segment processing lives in {@link TcpInput} (out-of-order data in
 * {@link OfoQueue}, receive-buffer accounting in {@link ReceiveMemory}), transmission in {@link TcpOutput},
 * timers in {@link TcpTimers}.
 *
 * <p>Locking: application calls own the socket through {@link SockLock} (lock_sock); the receive path
 * processes segments under the lock's short section or queues them to the backlog; timers defer to
 * the owner's release. See {@link SockLock}.
 */
final class TcpConnection extends TcpEndpoint implements TcpSocket, TcpProtocol.Binder {
    static final int DEFER_RTO = 1, DEFER_DELACK = 2, DEFER_KEEPALIVE = 4, DEFER_FINWAIT2 = 8, DEFER_PERSIST = 16,
            DEFER_FRIEND_DATA = 32, DEFER_LOSS = 64;

    final TcpProtocol tcp;
    final SockLock lock;
    volatile TcpState state = TcpState.CLOSED;

    // --- binding
    int boundAddress;
    boolean explicitBind;
    boolean reuseAddr;
    boolean portHeld;

    // --- send sequence space (RFC 9293 3.3.1)
    int iss;
    /** Next sequence number for new application data (Linux write_seq). */
    int writeSeq;
    int sndUna;
    int sndNxt;
    /** Highest sequence number sent (SND.NXT before a go-back-N rewind). */
    int sndMax;
    /** Send window in bytes (already scaled). */
    long sndWnd;
    /** End of the last small (below MSS) segment sent, for Minshall's Nagle check (Linux snd_sml); starts at the ISS. */
    int sndSml;
    int sndWl1;
    int sndWl2;
    int sndWscale;
    long maxSndWnd;
    /** Effective send MSS: payload bytes per segment (peer MSS and path MTU, minus options). */
    int mss = 536;
    int peerMss = 536;
    /** Our advertised MSS. */
    int advMss = 536;
    /**
     * TCP_MAXSEG as set (Linux rx_opt.user_mss), 0 when not: caps the MSS advertised and the peer's MSS taken
     * (tcp_mss_clamp, tcp_parse_options).
     */
    int userMss;
    /**
     * TCP_DEFER_ACCEPT as Linux stores it on any TCP socket (icsk_accept_queue.rskq_defer_accept): SYN-ACK timeouts;
     * on a connecting socket it delays the handshake's final ACK (tcp_rcv_synsent_state_process).
     */
    int deferAccept;
    /**
     * A listener's child in SYN-RECEIVED whose handshake the peer completed with a bare ACK, dropped while
     * TCP_DEFER_ACCEPT defers it or while the accept queue was full (Linux inet_rsk(req)->acked).
     */
    boolean reqAcked;

    // --- receive sequence space
    int irs;
    int rcvNxt;
    /**
     * First byte the application has not read (Linux copied_seq), set with rcvNxt at the handshake and moved on by
     * reads; peeks leave it. Plain TCP only: a friends connection counts its bytes in its pipe.
     */
    int copiedSeq;
    /** Window advertised in the last segment sent, in bytes. */
    int rcvWnd;
    /** rcvNxt when the window was last advertised (Linux rcv_wup). */
    int rcvWup;
    int rcvWscale;
    /** Largest segment payload received (Linux icsk_ack.rcv_mss). */
    int rcvMss = 536;

    // --- urgent data (RFC 9293 3.8.5 with BSD's pointer, RFC 6093; Linux snd_up, urg_data, urg_seq, SOCK_URGINLINE)
    /** {@link #urgData}: the urgent byte is here, in the low 8 bits (Linux TCP_URG_VALID). */
    static final int URG_VALID = 0x100;
    /** {@link #urgData}: an urgent pointer announced a byte that has not arrived yet (Linux TCP_URG_NOTYET). */
    static final int URG_NOTYET = 0x200;
    /** {@link #urgData}: the urgent byte was read with MSG_OOB (Linux TCP_URG_READ). */
    static final int URG_READ = 0x400;
    /**
     * Sending: one past the last urgent byte, i.e. {@link #writeSeq} when a MSG_OOB send pushed (Linux snd_up,
     * tcp_mark_urg); meaningful while {@link #sndUrg}.
     */
    int sndUp;
    /**
     * Urgent mode (Linux tcp_urg_mode, snd_up != snd_una): set by a MSG_OOB send, cleared once the peer
     * acknowledged {@link #sndUp}; meanwhile every segment sent before {@link #sndUp} carries URG and the pointer.
     */
    boolean sndUrg;
    /**
     * Receiving: 0 (no urgent data), {@link #URG_NOTYET}, {@link #URG_VALID} with the byte, or {@link #URG_READ}
     * (Linux urg_data); read without the lock by {@link #readyEvents} (POLLPRI), as tcp_poll reads it.
     */
    volatile int urgData;
    /** Sequence number of the urgent byte, the mark (Linux urg_seq); meaningful while {@link #urgData} is not 0. */
    int urgSeq;
    /** SO_OOBINLINE (Linux SOCK_URGINLINE): the urgent byte stays in the stream instead of being taken out of band. */
    boolean urgInline;

    // --- options
    boolean tsEnabled;
    boolean wscaleEnabled;
    /**
     * SACK (RFC 2018) is in use (Linux tcp_is_sack, rx_opt.sack_ok): before the handshake completes, that we offer it
     * (net.ipv4.tcp_sack); after, that both ends offered SACK-permitted on SYN and SYN-ACK.
     */
    boolean sackOk;
    int tsOffset;
    int tsRecent;
    long tsRecentStamp;
    int lastAckSent;
    final TcpOptions rxOpts = new TcpOptions();
    final TcpOptions txOpts = new TcpOptions();
    boolean seededFromTimeWait;

    // --- queues and memory
    /** Where application bytes go and come from: plain TCP, or a friend's pipe once paired (net.ipv4.tcp_friends). */
    volatile TcpDataPath dataPath = BaseDataPath.INSTANCE;
    /** TCP friends: net.ipv4.tcp_friends was on at connect(2) (client). */
    boolean friendsWanted;
    /** TCP friends metadata every segment of ours carries (TcpFriends): the offer or our friend's end; null for none. */
    Object friendTag;
    /** Unacknowledged and unsent data segments in sequence order (Linux sk_write_queue). */
    final PacketQueue writeQueue = new PacketQueue();
    /**
     * The {@link MsgFlags} of the write being queued, 0 between writes (under the lock): MSG_SENDPAGE_NOTLAST makes
     * segments grow to the size goal, MSG_OOB keeps them to one MSS (Linux tcp_send_mss: no large goal for MSG_OOB).
     */
    int sendFlags;
    /** The sent segments of {@link #writeQueue} the peer SACKed, when SACK is in use (Linux's SACK tagging). */
    final SackScoreboard sack = new SackScoreboard();
    /** First segment not yet sent (Linux sk_send_head), or null. */
    PacketBuffer sendHead;
    /** In-order received data not yet read; the head's data starts at the first unread byte. */
    final PacketQueue receiveQueue = new PacketQueue();
    /** Out-of-order segments, in sequence order, disjoint (Linux out_of_order_queue). */
    final OfoQueue oooQueue = new OfoQueue();
    /** The SACK and D-SACK blocks our ACKs carry when SACK is in use (Linux selective_acks, duplicate_sack). */
    final SackBlocks rcvSacks = new SackBlocks();
    /** The socket's parked buffers (net.ipv4.tcp_tx_skb_cache, tcp_rx_skb_cache). */
    final SkbCache skbCache = new SkbCache();
    int sndbuf;
    int rcvbuf;
    /**
     * A writer found the send buffer full (Linux SOCK_NOSPACE): the ACK path wakes writers only then, and
     * only once a third of the buffer is free again ({@link TcpOutput#isWriteable}), as sk_stream_write_space.
     */
    volatile boolean sndNoSpace;
    /**
     * Wake readiness listeners on every ACK that acknowledges new data, not only when a writer waits for room:
     * Linux calls sk_write_space whenever the send queue shrank (tcp_check_space with SOCK_QUEUE_SHRUNK), and
     * RDS over TCP replaces it with rds_tcp_write_space to free acknowledged messages. Set by
     * {@link TcpKernelSockets#setWriteSpaceOnEveryAck}.
     */
    volatile boolean writeSpaceEveryAck;
    /**
     * Set with {@link #writeSpaceEveryAck} when an ACK freed send-queue space and woke the listeners (Linux's
     * sk_write_space); taken by {@link TcpKernelSockets#takeWriteSpace}.
     */
    volatile boolean writeSpaceSignalled;
    boolean sndbufLocked;
    boolean rcvbufLocked;
    /**
     * Pages of the namespace's TCP memory this connection holds (its queues plus its forward allocation, Linux
     * sk_forward_alloc rounded to whole pages); see {@link TcpMemory}. Guarded by the socket lock.
     */
    int memPages;
    /** The last write stopped because TCP memory was refused (Linux sk_wmem_schedule failed), not the send buffer. */
    volatile boolean memLimited;
    /**
     * Most window to offer, in bytes (Linux rcv_ssthresh): the initial window at the handshake (tcp_connect_init,
     * tcp_openreq_init_rwin), clamped to four advertised MSS under TCP memory pressure (tcp_adjust_rcv_ssthresh) and
     * to two when the queues outgrew the buffer (tcp_clamp_window), grown per data segment whose charge the window
     * allows for ({@link ReceiveMemory#growWindow}, tcp_grow_window); {@link Integer#MAX_VALUE} once it covers the
     * buffer.
     */
    int rcvSsthresh = Integer.MAX_VALUE;
    /** Receive-buffer autotuning state (Linux rcvq_space): bytes copied since rcvqTime. */
    long rcvqSpace;
    long rcvqCopied;
    long rcvqTime;

    // --- congestion and timing
    /** cwnd and ssthresh (RFC 5681), bytes. */
    final CongestionWindow win = new CongestionWindow();
    /** The congestion control algorithm (Linux icsk_ca_ops). */
    final CongestionControl cc = CongestionControl.newInstance(CongestionControl.DEFAULT_NAME);
    /**
     * Loss recovery: which segment to resend on duplicate, partial and SACK-bearing ACKs, cwnd meanwhile; NewReno
     * until the connection is established with SACK, {@link SackRecovery} from then on.
     */
    LossRecovery recovery = new NewRenoRecovery();
    /** RACK-TLP state (RFC 8985; Linux tp->rack, tlp_high_seq), used with SACK. */
    final RackLossDetection rack = new RackLossDetection();
    /** Undo of spurious reductions and F-RTO ({@link UndoState}). */
    final UndoState undo = new UndoState();
    /**
     * Linux tp->reordering: the reordering degree seen, segments (TCP_INFO tcpi_reordering); starts at
     * net.ipv4.tcp_reordering, raised when reordering is detected, at most net.ipv4.tcp_max_reordering.
     */
    int reordering;
    final RttEstimator rtt = new RttEstimator();
    int retransmits;
    /**
     * Linux retrans_stamp, as clock time (ns): when the first of the segments being retransmitted now was sent
     * (the first SYN of a connect); meaningful while {@link #retransmits} is not 0. The retransmission timeout
     * gives up by the time since then (retransmits_timed_out).
     */
    long retransStampNs;
    /** Unanswered window probes (Linux icsk_probes_out). */
    int probesOut;
    /** Persist timer backoff shift, cleared when the window opens (Linux icsk_backoff). */
    int persistBackoff;
    /** When the first zero-window probe of this closed window went, ns; 0 when none (Linux icsk_probes_tstamp). */
    long probesTstampNs;
    /**
     * TCP_USER_TIMEOUT in ms (Linux icsk_user_timeout), 0 when not set: how long sent data may stay
     * unacknowledged, or the peer silent under keepalive or window probes, before the connection fails.
     */
    int userTimeoutMs;
    /** Sequence and send time of the segment being timed when timestamps are off (Karn's algorithm). */
    int rttSeq;
    long rttTimeNs;
    boolean rttTiming;
    /** When data was last sent, retransmissions included (Linux lsndtime), ns; 0 = never. */
    long lastSendNs;
    long lastRecvNs;
    /** The input route of this connection's flow (Linux's sk_rx_dst), used by early demux. */
    final io.jnet.ip.InputRouteCache rxDst = new io.jnet.ip.InputRouteCache();
    /**
     * The sender used the whole congestion window in the current round (Linux tp->is_cwnd_limited), the most
     * segments in flight in that round (max_packets_out) and where the round ends (cwnd_usage_seq): set by
     * {@link TcpOutput#cwndValidate}, read by {@link TcpOutput#isCwndLimited}.
     */
    boolean isCwndLimited;
    /** The write sequence when a segment was last marked PSH (Linux pushed_seq; {@link TcpOutput#markPush}). */
    int pushedSeq;
    /** The write in progress has queued bytes before this append (Linux tcp_sendmsg_locked's copied). */
    boolean sendCopied;
    long maxPacketsOut;
    int cwndUsageSeq;
    /** When a duplicate ACK last answered an out-of-window segment (Linux last_oow_ack_time). */
    long lastOowAckNs;
    int keepaliveProbes;
    /**
     * TCP_KEEPIDLE and TCP_KEEPINTVL in seconds, TCP_KEEPCNT (Linux tp->keepalive_time, keepalive_intvl,
     * keepalive_probes); 0 until set: the net.ipv4.tcp_keepalive_* sysctls apply (keepalive_time_when ...).
     */
    int keepIdleS, keepIntvlS, keepCnt;
    /** When the SYN was last sent (ns), for the first RTT sample. */
    long lastSynSentNs;
    /** Set by input processing: ACK this segment at once (out-of-order data, FIN). */
    boolean forceAck;

    // --- what TCP_INFO reports beyond the variables above (Linux tcp_sock statistics; see TcpInfoSnapshot)
    /** Congestion-avoidance state, TcpInfo.TCP_CA_* (Linux icsk_ca_state), set by the {@link #recovery}. */
    int caState = TcpInfo.TCP_CA_Open;
    /** When the connection reached ESTABLISHED, ns; 0 before. */
    long establishedNs;
    /** When an acceptable ACK last arrived (Linux rcv_tstamp), ns; 0 = never. */
    long lastAckRecvNs;
    /** The path MTU the MSS was computed for (Linux icsk_pmtu_cookie), bytes. */
    int pmtu;
    /** The rate Linux would pace at (sk_pacing_rate), bytes/s; -1 (Linux ~0) before an RTT sample. */
    long pacingRate = -1;
    long bytesAcked;
    long bytesReceived;
    long bytesSent;
    long bytesRetrans;
    long segsIn;
    long segsOut;
    long dataSegsIn;
    long dataSegsOut;
    long totalRetrans;
    long rcvOoopack;
    final MinRttFilter minRtt = new MinRttFilter();
    final DeliveryRate rate = new DeliveryRate();
    final TcpChrono chrono = new TcpChrono();
    final RcvRttEstimator rcvRtt = new RcvRttEstimator();

    // --- delayed ACK (Linux icsk_ack)
    boolean ackPending;
    /** A segment smaller than rcvMss arrived since the last ACK (Linux ICSK_ACK_PUSHED / PUSHED2). */
    boolean ackPushed;
    boolean ackPushed2;
    int quickAcks;
    int pingpong;
    /** The delayed-ACK timeout (icsk_ack.ato): 0 until the first data (tcp_event_data_recv) or quick-ACK mode. */
    long atoNs;
    long lrcvtimeNs;

    // --- app state
    volatile boolean blocking = true;
    /**
     * Linux tp->nonagle: {@link TcpOutput#TCP_NAGLE_OFF} (TCP_NODELAY), {@link TcpOutput#TCP_NAGLE_CORK}
     * (TCP_CORK) and the one-shot {@link TcpOutput#TCP_NAGLE_PUSH}, set by TCP_NODELAY or by uncorking with
     * TCP_NODELAY set and cleared when a new segment is queued.
     */
    int nonagle;
    boolean keepalive;
    long rcvTimeoNs;
    /** SO_RCVLOWAT in bytes, at least 1 (Linux sk_rcvlowat): what a read waits for and poll's POLLIN needs. */
    int rcvLowat = 1;
    /** SO_BUSY_POLL in microseconds: how long a blocked read spins before it sleeps (net.core.busy_read at creation). */
    int busyPollUs;
    long sndTimeoNs;
    /** SO_LINGER in ns: -1 off. */
    long lingerNs = -1;
    int softError;
    /** Pending error reported to the next call (Linux sk_err), 0 when none. */
    volatile int soError;
    volatile boolean rcvShutdown;
    volatile boolean sndShutdown;
    boolean finQueued;
    boolean finReceived;
    volatile boolean userClosed;
    volatile boolean connectReported;
    TcpListenerImpl parent;
    boolean accepted;
    boolean inAcceptQueue;
    boolean countedGone;

    final DstCache dst = new DstCache();
    final Timer rtoTimer;
    final Timer delackTimer;
    final Timer keepaliveTimer;
    final Timer finWait2Timer;
    final Timer persistTimer;
    /** RACK's reordering timer or the tail loss probe timer ({@link RackLossDetection}; Linux's REO_TIMEOUT, LOSS_PROBE). */
    final Timer lossTimer;
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();
    private InputStream in;
    private OutputStream out;
    /**
     * Smallest sendfile call, in bytes, whose segments refer to the file mapping instead of holding a copy
     * (smaller ones copy, where the reference costs more than the copy it saves).
     */
    static final int ZERO_COPY_MIN = 16384;
    /** The file mapping kept between sendfile calls while no call uses it (guarded by the socket lock), or null. */
    SendFileWindow sendFileWindow;

    TcpConnection(TcpProtocol tcp) {
        this.tcp = tcp;
        this.lock = new SockLock(tcp.ns.clock()); // timed waits on the namespace's clock
        lock.setProcessor(p -> TcpInput.process(this, p));
        lock.setDeferredWork(flags -> TcpTimers.run(this, flags));
        lock.setWakeListener(this::notifyReadiness);
        rtoTimer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_RTO));
        delackTimer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_DELACK));
        keepaliveTimer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_KEEPALIVE));
        finWait2Timer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_FINWAIT2));
        persistTimer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_PERSIST));
        lossTimer = tcp.ns.timers().newTimer(() -> lock.deferOrRun(DEFER_LOSS));
        sack.rack = rack;
        sack.undo = undo;
        reordering = tcp.sysctl.tcpReordering.intValue();
        sndbuf = Math.max(TcpSocketOptions.SOCK_MIN_SNDBUF, tcp.sysctl.tcpWmem.intValue(1));
        rcvbuf = Math.max(TcpSocketOptions.SOCK_MIN_RCVBUF, tcp.sysctl.tcpRmem.intValue(1));
        busyPollUs = tcp.sysctl.busyRead.intValue();
    }

    public TcpState tcpState() { return state; }

    // ======================================================================================== API

    @Override
    public void bind(InetSocketAddress local) throws IOException {
        if (local.isUnresolved()) throw new java.nio.channels.UnresolvedAddressException();
        int addr = Ipv4.fromInet(local.getAddress());
        int port = local.getPort();
        lock.lock();
        try {
            if (userClosed) throw new ErrnoException(Errno.EBADF, "bind");
            if (portHeld || state != TcpState.CLOSED) throw new ErrnoException(Errno.EINVAL, "bind");
            if (addr != 0 && !tcp.ns.isLocalAddress(addr)) throw new ErrnoException(Errno.EADDRNOTAVAIL, "bind");
            boundAddress = addr;
            localAddr = addr;
            explicitBind = true;
            localPort = tcp.bind(this, addr, port);
            portHeld = true;
        } finally {
            lock.release();
        }
    }

    @Override
    public void connect(InetSocketAddress remote) throws IOException {
        if (remote.isUnresolved()) throw new java.nio.channels.UnresolvedAddressException();
        int raddr = Ipv4.fromInet(remote.getAddress());
        int rport = remote.getPort();
        lock.lock();
        try {
            if (userClosed) throw new ErrnoException(Errno.EBADF, "connect");
            switch (state) {
                case SYN_SENT -> throw new ErrnoException(Errno.EALREADY, "connect");
                case CLOSED -> { }
                default -> {
                    // __inet_stream_connect: a non-blocking connect that completed since is reported once, with
                    // 0 (SS_CONNECTING becomes SS_CONNECTED); later calls fail with EISCONN
                    if (connectReported || accepted) throw new ErrnoException(Errno.EISCONN, "connect");
                    connectReported = true;
                    return;
                }
            }
            if (connectReported) throw new ErrnoException(Errno.EISCONN, "connect");
            if (rport == 0) throw new ErrnoException(Errno.ECONNREFUSED, "connect");
            if (raddr == 0) raddr = 0x7F000001;
            Route r = tcp.ip.route(raddr, dst);
            if (r == null) throw new ErrnoException(Errno.ENETUNREACH, "connect");
            remoteAddr = raddr;
            remotePort = rport;
            localAddr = boundAddress != 0 ? boundAddress : r.source(raddr);
            if (!portHeld) {
                tcp.connectPort(this);
                portHeld = true;
            } else {
                tcp.hashConnection(this);
            }
            soError = 0;
            TcpFriends.onConnect(this);
            TcpOutput.startConnect(this, r);
            tcp.mib.inc(MibCounter.TcpActiveOpens);
            if (!blocking) throw new ErrnoException(Errno.EINPROGRESS, "connect");
            long deadline = sndTimeoNs > 0 ? tcp.ns.clock().nanoTime() + sndTimeoNs : 0;
            while (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) {
                if (!waitEvent(deadline)) throw new ErrnoException(Errno.EINPROGRESS, "connect timed out (SO_SNDTIMEO)");
            }
            // closed by another thread while the handshake was open: no connection was made
            if (userClosed && !connectReported) throw new ErrnoException(Errno.EBADF, "connect: socket closed while connecting");
            int err = soError;
            if (err != 0 && !state.isSynchronized()) {
                soError = 0;
                connectReported = true;
                throw errno(err, "connect");
            }
            connectReported = true;
        } finally {
            lock.release();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) return false;
            int err = soError;
            if (err != 0 && !connectReported) {
                soError = 0;
                connectReported = true;
                throw errno(err, "connect");
            }
            if (state == TcpState.CLOSED && !connectReported) throw new ErrnoException(Errno.ENOTCONN, "finishConnect");
            connectReported = true;
            return true;
        } finally {
            lock.release();
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException { return read(b, off, len, 0); }

    @Override
    public int read(ByteBuffer dst) throws IOException { return read(dst, 0); }

    @Override
    public int read(byte[] b, int off, int len, int flags) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        checkRecvFlags(flags);
        lock.lock();
        try {
            if ((flags & MsgFlags.MSG_OOB) != 0) return recvUrg(b, off, len, null, flags);
            return readLocked(b, off, len, null, flags);
        } finally {
            lock.release();
        }
    }

    @Override
    public int read(ByteBuffer dst, int flags) throws IOException {
        checkRecvFlags(flags);
        lock.lock();
        try {
            if ((flags & MsgFlags.MSG_OOB) != 0) return recvUrg(null, 0, dst.remaining(), dst, flags);
            if (dst.hasArray()) {
                int n = readLocked(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining(), null, flags);
                if (n > 0) dst.position(dst.position() + n);
                return n;
            }
            return readLocked(null, 0, dst.remaining(), dst, flags);
        } finally {
            lock.release();
        }
    }

    private static void checkRecvFlags(int flags) throws ErrnoException {
        if ((flags & ~MsgFlags.TCP_RECV_FLAGS) != 0) {
            throw new ErrnoException(Errno.EINVAL, "recv: unsupported flags 0x" + Integer.toHexString(flags & ~MsgFlags.TCP_RECV_FLAGS));
        }
    }

    /**
     * recv(2) under the socket lock, as Linux's tcp_recvmsg_locked: copies queued bytes into {@code b} at
     * {@code off} (or {@code bb} at its position), taking them from the queue unless {@link MsgFlags#MSG_PEEK},
     * until it has the target (sock_rcvlowat: SO_RCVLOWAT bytes, all of {@code len} with
     * {@link MsgFlags#MSG_WAITALL}, never more than {@code len}). Short of it, a blocking call waits for more; a
     * non-blocking one, or one that meets end of stream, a pending error, shutdown(SHUT_RD) or the closed
     * socket, returns what it copied. With nothing copied: -1 at end of stream (before a pending error, as
     * Linux's SOCK_DONE) and after shutdown(SHUT_RD) (after it), the error, ENOTCONN on a socket never
     * connected, 0 when it would block; EAGAIN (with nothing copied) when SO_RCVTIMEO expires.
     */
    private int readLocked(byte[] b, int off, int len, ByteBuffer bb, int flags) throws IOException {
        if (len == 0) return 0;
        boolean blocking = this.blocking && (flags & MsgFlags.MSG_DONTWAIT) == 0;
        boolean peek = (flags & MsgFlags.MSG_PEEK) != 0;
        int target = (flags & MsgFlags.MSG_WAITALL) != 0 ? len : Math.min(rcvLowat, len);
        long deadline = rcvTimeoNs > 0 ? tcp.ns.clock().nanoTime() + rcvTimeoNs : 0;
        int copied = 0;
        while (true) {
            TcpDataPath path = dataPath;
            if (peek) copied += path.peek(this, copied, b, off + copied, len - copied, bb);
            else if (path.readable(this)) copied += path.read(this, b, off + copied, len - copied, bb);
            if (copied >= target) return copied;
            if (copied > 0 && urgData != 0 && urgSeq == TcpInput.copiedSeq(this)) return copied; // stop at the urgent mark
            if (copied > 0) {
                if (!blocking || soError != 0 || state == TcpState.CLOSED || rcvShutdown || finReceived) return copied;
            } else {
                if (finReceived) return -1;
                int err = soError;
                if (err != 0) {
                    soError = 0;
                    throw errno(err, "read");
                }
                if (rcvShutdown) return -1;
                if (state == TcpState.CLOSED) {
                    if (connectReported || accepted) return -1;
                    throw new ErrnoException(Errno.ENOTCONN, "read");
                }
                if (state == TcpState.LISTEN) throw new ErrnoException(Errno.ENOTCONN, "read");
                if (!blocking) return 0;
            }
            path.readerWaits(this);
            if (peek ? path.unread(this) > copied : path.readable(this)) continue;
            if (!waitEvent(deadline, busyPollUs * 1000L)) {
                if (copied > 0) return copied;
                throw new ErrnoException(Errno.EAGAIN, "read timed out (SO_RCVTIMEO)");
            }
        }
    }

    /**
     * recv(MSG_OOB) under the socket lock, as Linux's tcp_recv_urg: the urgent byte into {@code b} at {@code off}
     * (or {@code bb}), once; it never blocks, whatever the socket's mode. Returns 1, 0 when {@code len} is 0 (the
     * byte is taken all the same, as Linux's MSG_TRUNC case), or -1 when the urgent byte announced will not come
     * (the peer's FIN, shutdown(SHUT_RD) or the connection's end; Linux returns 0).
     *
     * @throws ErrnoException EINVAL with SO_OOBINLINE, without urgent data or when it was read already; ENOTCONN
     *                        after the connection ended without the peer's FIN (a reset); EAGAIN while the urgent
     *                        byte announced has not arrived yet
     */
    private int recvUrg(byte[] b, int off, int len, ByteBuffer bb, int flags) throws ErrnoException {
        int urg = urgData;
        if (urgInline || urg == 0 || urg == URG_READ) {
            throw new ErrnoException(Errno.EINVAL, "recv(MSG_OOB): " + (urgInline ? "SO_OOBINLINE is set" : "no urgent data"));
        }
        if (state == TcpState.CLOSED && !finReceived) throw new ErrnoException(Errno.ENOTCONN, "recv(MSG_OOB)");
        if ((urg & URG_VALID) != 0) {
            if ((flags & MsgFlags.MSG_PEEK) == 0) urgData = URG_READ; // with MSG_PEEK it stays to be read (tcp_recv_urg)
            if (len == 0) return 0;
            if (bb != null) bb.put((byte) urg);
            else b[off] = (byte) urg;
            return 1;
        }
        if (state == TcpState.CLOSED || rcvShutdown || finReceived) return -1;
        throw new ErrnoException(Errno.EAGAIN, "recv(MSG_OOB): the urgent byte has not arrived yet");
    }

    @Override
    public int write(byte[] b, int off, int len) throws IOException { return write(b, off, len, 0); }

    @Override
    public int write(ByteBuffer src) throws IOException { return write(src, 0); }

    @Override
    public int write(byte[] b, int off, int len, int flags) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        checkSendFlags(flags);
        lock.lock();
        try {
            return writeLocked(b, off, len, null, null, false, flags);
        } finally {
            lock.release();
        }
    }

    @Override
    public int write(ByteBuffer src, int flags) throws IOException {
        checkSendFlags(flags);
        lock.lock();
        try {
            if (src.hasArray()) {
                int n = writeLocked(src.array(), src.arrayOffset() + src.position(), src.remaining(), null, null, false, flags);
                if (n > 0) src.position(src.position() + n);
                return n;
            }
            return writeLocked(null, 0, src.remaining(), src, null, false, flags); // copying advances the position
        } finally {
            lock.release();
        }
    }

    private static void checkSendFlags(int flags) throws ErrnoException {
        if ((flags & ~MsgFlags.TCP_SEND_FLAGS) != 0) {
            throw new ErrnoException(Errno.EINVAL, "send: unsupported flags 0x" + Integer.toHexString(flags & ~MsgFlags.TCP_SEND_FLAGS));
        }
    }

    /**
     * send(2) under the socket lock: {@code len} bytes from {@code b} at {@code off}, or from {@code bb} at its
     * position, or (when {@code region} is not null) from {@code region} at {@code off}, queued by reference
     * when {@code byReference} and copied otherwise. {@code flags}: {@link MsgFlags} (checked by the caller).
     */
    private int writeLocked(byte[] b, long off, int len, ByteBuffer bb, PayloadRegion region, boolean byReference,
            int flags) throws IOException {
        boolean blocking = this.blocking && (flags & MsgFlags.MSG_DONTWAIT) == 0;
        long deadline = sndTimeoNs > 0 ? tcp.ns.clock().nanoTime() + sndTimeoNs : 0;
        int copied = 0;
        boolean rechecked = false;
        if (state.canSend()) TcpOutput.checkAppLimited(this);
        while (true) {
            int err = soError;
            if (err != 0) {
                soError = 0;
                if (copied > 0) return copied;
                throw errno(err, "write");
            }
            if (sndShutdown || userClosed) {
                if (copied > 0) return copied;
                throw new ErrnoException(Errno.EPIPE, "write");
            }
            if (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) {
                if (!blocking) return copied;
                if (!waitEvent(deadline)) throw new ErrnoException(Errno.EAGAIN, "write timed out (SO_SNDTIMEO)");
                continue;
            }
            if (!state.canSend()) {
                if (copied > 0) return copied;
                throw new ErrnoException(state == TcpState.CLOSED && !connectReported && !accepted ? Errno.ENOTCONN : Errno.EPIPE, "write");
            }
            if (copied == len) break;
            TcpDataPath path = dataPath;
            if ((flags & MsgFlags.MSG_OOB) != 0 && path != BaseDataPath.INSTANCE) {
                if (copied > 0) return copied;
                throw new ErrnoException(Errno.EOPNOTSUPP, "send(MSG_OOB): a TCP friends connection has no urgent pointer");
            }
            sendFlags = flags;
            sendCopied = copied > 0;
            try {
                copied += path.append(this, b, off + copied, len - copied, bb, region, byReference);
            } finally {
                sendFlags = 0;
            }
            if (copied == len) break;
            // send buffer full: push what we have, then wait for space (sk_stream_wait_memory)
            sndNoSpace = true;
            chrono.start(TcpChrono.SNDBUF_LIMITED, tcp.ns.clock().nanoTime());
            // tcp_sendmsg_locked before sk_stream_wait_memory: tcp_push(flags & ~MSG_MORE, TCP_NAGLE_PUSH)
            if (copied > 0) TcpOutput.markTailPush(this, false);
            // tcp_sendmsg_locked before sk_stream_wait_memory: tcp_push(flags & ~MSG_MORE, TCP_NAGLE_PUSH), which
            // with MSG_OOB moves the urgent pointer to the end of what was copied so far (tcp_mark_urg)
            if (copied > 0 && (flags & MsgFlags.MSG_OOB) != 0) TcpOutput.markUrg(this);
            path.push(this, TcpOutput.TCP_NAGLE_PUSH);
            // SOCK_NOSPACE also for a non-blocking call (tcp_sendmsg_locked sets it before sk_stream_wait_memory
            // returns EAGAIN): the reader that frees room then wakes this socket's pollers, which an
            // edge-triggered POLLOUT waits for. A friend's reader wakes only a writer that announced itself, so a
            // non-blocking writer that did not would never see the edge
            path.writerWaits(this);
            if (!blocking) {
                // the reader freed room before the announcement, so no wake-up will come for it: use it (once)
                if (!rechecked && path.isWriteable(this)) {
                    rechecked = true;
                    continue;
                }
                return copied;
            }
            if (memLimited) {
                // TCP memory refused more (sk_stream_wait_memory's vm_wait): no ACK need come to free it, so
                // wait at most 2 to 200 ms, chosen at random as Linux, then try again
                long now = tcp.ns.clock().nanoTime();
                if (deadline != 0 && now >= deadline) {
                    if (copied > 0) return copied;
                    throw new ErrnoException(Errno.EAGAIN, "write timed out (SO_SNDTIMEO)");
                }
                long vmWait = now + (2 + tcp.ns.randomInt(199)) * 1_000_000L;
                waitEvent(deadline == 0 ? vmWait : Math.min(deadline, vmWait));
            } else if (path.sendSpace(this) <= 0 && !waitEvent(deadline)) {
                if (copied > 0) return copied;
                throw new ErrnoException(Errno.EAGAIN, "write timed out (SO_SNDTIMEO)");
            }
        }
        // tcp_push: MSG_MORE corks this push whatever TCP_NODELAY and TCP_CORK say; MSG_SENDPAGE_NOTLAST sends
        // only full-sized segments (do_tcp_sendpages pushed those from its loop and skipped the final tcp_push).
        // The last segment is marked PSH unless more is promised (tcp_push's tcp_mark_push)
        if (copied > 0) {
            TcpOutput.markTailPush(this, (flags & (MsgFlags.MSG_MORE | MsgFlags.MSG_SENDPAGE_NOTLAST)) != 0);
        }
        // tcp_push: MSG_OOB puts the urgent pointer after the last byte (tcp_mark_urg); MSG_MORE corks this push
        // whatever TCP_NODELAY and TCP_CORK say; MSG_SENDPAGE_NOTLAST sends only full-sized segments
        // (do_tcp_sendpages pushed those from its loop and skipped the final tcp_push)
        if (copied > 0 && (flags & MsgFlags.MSG_OOB) != 0) TcpOutput.markUrg(this);
        if ((flags & MsgFlags.MSG_SENDPAGE_NOTLAST) != 0) {
            dataPath.push(this, TcpOutput.TCP_NAGLE_NOTLAST | ((flags & MsgFlags.MSG_MORE) != 0 ? TcpOutput.TCP_NAGLE_CORK : nonagle));
        } else {
            dataPath.push(this, (flags & MsgFlags.MSG_MORE) != 0 ? TcpOutput.TCP_NAGLE_CORK : nonagle);
        }
        return copied;
    }

    @Override
    public long transferFrom(FileChannel src, long position, long count) throws IOException {
        java.util.Objects.requireNonNull(src, "src");
        if (position < 0 || count < 0) {
            throw new ErrnoException(Errno.EINVAL, "sendfile: negative " + (position < 0 ? "offset" : "count"));
        }
        if (count == 0) return 0;
        if (!src.isOpen()) throw new ErrnoException(Errno.EBADF, "sendfile: file closed");
        lock.lock();
        // the call owns the window while it runs: a concurrent sendfile (possible while this one waits for
        // send space with the lock given up) maps its own, and close() cannot unmap bytes being copied
        SendFileWindow window = sendFileWindow;
        sendFileWindow = null;
        if (window == null) window = new SendFileWindow(tcp.sendfileFault);
        long done = 0;
        try {
            long todo = count;
            long size = -1;
            if (window.held(src, position) < count) {
                // beyond the mapping: the file's size now bounds the call (Linux's short count for a file that
                // shrank). Within the mapping the size is not read again: FileChannel.size() costs about 1.7 us,
                // a third of a 64 KiB call; bytes lost to a truncation since go as zeros, counted (PayloadRegion)
                size = fileSize(src);
                if (position >= size) return 0;
                todo = Math.min(count, size - position);
            }
            boolean byReference = todo >= ZERO_COPY_MIN;
            while (done < todo) {
                // by reference, the segments refer to the mapping and the receiver's copy is the only one; a small
                // call copies the bytes into the send queue, as send(2) would
                int chunk = window.select(src, position + done, todo - done, size);
                // as Linux's splice into the socket: MSG_MORE on every chunk but the last
                int more = done + chunk < todo ? MsgFlags.MSG_MORE : 0;
                int n = writeLocked(null, window.offset(position + done), chunk, null, window.region(), byReference, more);
                done += n;
                if (n < chunk) break; // non-blocking and full, SO_SNDTIMEO, or an error after a partial write
            }
            if (done == 0 && !blocking) throw new ErrnoException(Errno.EAGAIN, "sendfile");
            return done;
        } catch (IOException e) {
            if (done > 0) return done; // as Linux: bytes already queued are reported, the error comes next call
            throw e;
        } finally {
            if (sendFileWindow == null && !userClosed) sendFileWindow = window;
            else window.release();
            lock.release();
        }
    }

    private static long fileSize(FileChannel src) throws IOException {
        try {
            return src.size();
        } catch (ClosedChannelException e) {
            throw new ErrnoException(Errno.EBADF, "sendfile: file closed");
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.CLOSED || state == TcpState.LISTEN || state == TcpState.SYN_SENT) {
                if (state == TcpState.SYN_SENT) {
                    sndShutdown = true;
                    return;
                }
                throw new ErrnoException(Errno.ENOTCONN, "shutdown");
            }
            if (sndShutdown) return;
            sndShutdown = true;
            TcpOutput.sendFin(this);
            notifyReadiness();
            lock.wakeUp(); // a writer blocked for room returns what it copied (sk_stream_wait_memory sees SEND_SHUTDOWN)
        } finally {
            lock.release();
        }
    }

    @Override
    public void shutdownInput() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.CLOSED && !connectReported && !accepted) throw new ErrnoException(Errno.ENOTCONN, "shutdown");
            rcvShutdown = true;
            dataPath.shutdownInput(this);
            lock.wakeUp();
        } finally {
            lock.release();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closeLocked();
        } finally {
            lock.release();
        }
    }

    /**
     * Reads what is queued without waiting, handing each chunk to {@code sink}, then closes, all while owning
     * the socket: segments that arrive meanwhile wait in the backlog and meet a closed socket, so no byte is
     * acknowledged to the peer that the owner did not read. See {@link TcpKernelSockets#drainAndClose}.
     */
    void drainAndClose(byte[] b, TcpKernelSockets.ChunkSink sink) {
        lock.lock();
        try {
            if (!userClosed) {
                boolean wasBlocking = blocking;
                blocking = false;
                try {
                    int n;
                    while ((n = readLocked(b, 0, b.length, null, 0)) > 0) {
                        if (!sink.accept(b, n)) break;
                    }
                } catch (IOException e) {
                    // reset or closed: nothing more to read
                } catch (RuntimeException e) {
                    tcp.ns.reportInternalError(e); // the sink failed: the socket is closed all the same
                } finally {
                    blocking = wasBlocking;
                }
            }
            closeLocked();
        } finally {
            lock.release();
        }
    }

    private void closeLocked() {
        {
            if (userClosed) return;
            userClosed = true;
            rcvShutdown = true;
            dataPath.userClosing(this);
            releaseSendFileWindow();
            TcpOutput.closeByUser(this);
            if (lingerNs > 0 && state != TcpState.CLOSED) {
                long deadline = tcp.ns.clock().nanoTime() + lingerNs;
                while (state != TcpState.CLOSED && state != TcpState.TIME_WAIT && state != TcpState.FIN_WAIT_2
                        && writeQueue.size() > 0) {
                    try {
                        if (!lock.await(Math.max(1, deadline - tcp.ns.clock().nanoTime()))
                                && tcp.ns.clock().nanoTime() >= deadline) break;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            lock.wakeUp();
        }
    }

    @Override
    public boolean isClosed() { return userClosed; }

    /** Unmaps the file kept by sendfile, if any (called with the socket owned or exclusive). */
    private void releaseSendFileWindow() {
        if (sendFileWindow != null) {
            sendFileWindow.release();
            sendFileWindow = null;
        }
    }

    /** Namespace shutdown: abort without waiting. */
    void abortOnNamespaceClose() {
        io.jnet.stack.SoftIrq.runBottomHalf(() -> lock.runExclusive(() -> {
            userClosed = true;
            releaseSendFileWindow();
            TcpOutput.abort(this, Errno.ECONNABORTED, false);
        }));
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        lock.lock();
        try {
            TcpSocketOptions.set(this, option, value);
        } finally {
            lock.release();
        }
    }

    @Override
    public <T> T getOption(SocketOption<T> option) throws IOException {
        lock.lock();
        try {
            return TcpSocketOptions.get(this, option);
        } finally {
            lock.release();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress(Ipv4.toInet(localAddr != 0 ? localAddr : boundAddress), localPort);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        if (remotePort == 0) return null;
        return new InetSocketAddress(Ipv4.toInet(remoteAddr), remotePort);
    }

    @Override
    public String state() { return state.ssName(); }

    @Override
    public int available() {
        lock.lock();
        try {
            return (int) Math.min(Integer.MAX_VALUE, inqLocked());
        } finally {
            lock.release();
        }
    }

    @Override
    public TcpInfo info() {
        lock.lock();
        try {
            dataPath.sync(this);
            return TcpInfoSnapshot.of(this, tcp.ns.clock().nanoTime());
        } finally {
            lock.release();
        }
    }

    @Override
    public int inq() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.LISTEN) throw new ErrnoException(Errno.EINVAL, "SIOCINQ on a listening socket");
            if (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) return 0;
            return (int) Math.min(Integer.MAX_VALUE, inqLocked());
        } finally {
            lock.release();
        }
    }

    /**
     * The unread bytes SIOCINQ counts (Linux tcp_inq): all of them, but only those before the urgent mark while
     * urgent data is pending out of band (SO_OOBINLINE off, the mark not passed and not beyond RCV.NXT).
     */
    private long inqLocked() {
        long unread = dataPath.unread(this);
        if (urgData == 0 || urgInline) return unread;
        int copied = TcpInput.copiedSeq(this);
        if (Tcp.seqLt(urgSeq, copied) || Tcp.seqGeq(urgSeq, rcvNxt)) return unread;
        return urgSeq - copied;
    }

    @Override
    public boolean atMark() {
        lock.lock();
        try {
            return urgData != 0 && urgSeq == TcpInput.copiedSeq(this);
        } finally {
            lock.release();
        }
    }

    @Override
    public int outq() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.LISTEN) throw new ErrnoException(Errno.EINVAL, "SIOCOUTQ on a listening socket");
            if (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) return 0;
            return writeSeq - sndUna;
        } finally {
            lock.release();
        }
    }

    @Override
    public int outqNotSent() throws IOException {
        lock.lock();
        try {
            if (state == TcpState.LISTEN) throw new ErrnoException(Errno.EINVAL, "SIOCOUTQNSD on a listening socket");
            if (state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) return 0;
            return Math.max(0, writeSeq - sndMax);
        } finally {
            lock.release();
        }
    }

    @Override
    public void setBlocking(boolean blocking) { this.blocking = blocking; }

    @Override
    public boolean isBlocking() { return blocking; }

    /**
     * Readiness as Linux's tcp_poll, with Linux's sk_shutdown as jnet keeps it: RCV_SHUTDOWN is
     * {@link #rcvShutdown} (shutdown(SHUT_RD), close, tcp_done) or {@link #finReceived} (tcp_fin), SEND_SHUTDOWN
     * is {@link #sndShutdown} (shutdown(SHUT_WR), tcp_done). POLLHUP when both are set or the socket is closed
     * (also one never connected); POLLIN and POLLRDHUP with RCV_SHUTDOWN; outside SYN-SENT and SYN-RECEIVED,
     * POLLIN when tcp_epollin_ready finds SO_RCVLOWAT bytes queued (or fewer under receive-memory pressure or
     * with at most a segment of window left) and POLLOUT with SEND_SHUTDOWN or room to write
     * (__sk_stream_is_writeable); POLLERR while an error is pending (sk_err).
     */
    @Override
    public int readyEvents() {
        TcpState s = state;
        TcpDataPath path = dataPath;
        boolean rcvShut = rcvShutdown || finReceived;
        boolean sndShut = sndShutdown;
        int ev = 0;
        int urg = urgData;
        if ((urg & URG_VALID) != 0) ev |= Events.POLLPRI; // tcp_poll: urgent data not read yet
        if ((rcvShut && sndShut) || s == TcpState.CLOSED) ev |= Events.POLLHUP;
        if (rcvShut) ev |= Events.POLLIN | Events.POLLRDHUP;
        if (s != TcpState.SYN_SENT && s != TcpState.SYN_RECEIVED) {
            int target = rcvLowat;
            // tcp_poll: a read at the urgent mark skips the urgent byte out of band, which counts for nothing
            if (target <= 1 ? path.hasUnread(this) && (urg == 0 || !onlyUrgentByteUnread())
                    : path.epollinReady(this, target + (urg != 0 && !urgInline && urgSeq == TcpInput.copiedSeq(this) ? 1 : 0)))
                ev |= Events.POLLIN;
            if (sndShut || path.isWriteable(this)) ev |= Events.POLLOUT;
            else path.writerWaits(this); // tcp_poll sets SOCK_NOSPACE: the next write-space event must notify this poller
        }
        if (soError != 0) ev |= Events.POLLERR;
        return ev;
    }

    /**
     * Linux tcp_poll's POLLIN target, one byte more at the urgent mark without SO_OOBINLINE: true when the urgent
     * byte, which a read skips, is all that is unread. Read without the lock, as readiness is; only while
     * {@link #urgData} is set.
     */
    private boolean onlyUrgentByteUnread() {
        if (urgInline) return false;
        PacketBuffer p = receiveQueue.peek();
        return p != null && p.next == null && p.length() == 1 && p.seq == urgSeq;
    }

    @Override
    public void addReadinessListener(ReadinessListener l) { listeners.add(l); }

    @Override
    public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    /** True when a poller watches this socket (it must hear of every new byte, as sk_data_ready tells it). */
    boolean hasReadinessListeners() { return !listeners.isEmpty(); }

    void notifyReadiness() {
        if (listeners.isEmpty()) return; // no iterator on the common path
        for (ReadinessListener l : listeners) {
            try {
                l.readinessChanged(this);
            } catch (RuntimeException e) {
                tcp.ns.reportInternalError(e);
            }
        }
    }

    /**
     * Wakes blocked callers and readiness listeners (sk_data_ready / sk_write_space / sk_state_change); from
     * the receive path both happen just after the socket's short lock is released.
     */
    void wakeUp() {
        lock.wakeUp();
    }

    @Override
    public synchronized InputStream inputStream() {
        if (in == null) in = io.jnet.socket.SocketStreams.input(this);
        return in;
    }

    @Override
    public synchronized OutputStream outputStream() {
        if (out == null) out = io.jnet.socket.SocketStreams.output(this);
        return out;
    }

    // ========================================================================= Binder + helpers

    @Override public int boundAddress() { return boundAddress; }
    @Override public boolean reuseAddress() { return reuseAddr; }
    @Override public boolean isListening() { return false; }
    @Override public boolean explicitBind() { return explicitBind; }

    /** Waits for an event with the socket lock given up; false when the deadline passed. */
    boolean waitEvent(long deadline) throws IOException {
        return waitEvent(deadline, 0);
    }

    /** {@link #waitEvent(long)}, spinning up to {@code spinNanos} before sleeping (busy polling, reads only). */
    boolean waitEvent(long deadline, long spinNanos) throws IOException {
        long timeout = 0;
        if (deadline != 0) {
            timeout = deadline - tcp.ns.clock().nanoTime();
            if (timeout <= 0) return false;
        }
        try {
            lock.await(timeout, spinNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
        return true;
    }

    static ErrnoException errno(int err, String op) {
        for (Errno e : Errno.values()) if (e.number() == err) return new ErrnoException(e, op);
        return new ErrnoException(Errno.EINVAL, op + " (errno " + err + ")");
    }

    /** Right edge of the last advertised window, minus rcvNxt: what the peer may still send (tcp_receive_window). */
    int receiveWindow() {
        int w = rcvWup + rcvWnd - rcvNxt;
        return Math.max(w, 0);
    }

    int lastAdvertisedWindow() { return rcvWnd >> rcvWscale; }

    /** Memory charged to the receive queues (bytes of truesize). */
    long rmemAlloc() { return receiveQueue.bytes() + oooQueue.bytes(); }

    /** Memory charged to this connection's queues, bytes of truesize (Linux sk_wmem_queued + sk_rmem_alloc). */
    long memQueued() { return writeQueue.bytes() + receiveQueue.bytes() + oooQueue.bytes(); }

    /** Called by a TIME-WAIT remnant this connection replaces (tcp_tw_reuse). */
    void reuseFromTimeWait(int writeSeq, int tsRecent, long tsRecentStamp) {
        this.seededFromTimeWait = true;
        this.iss = writeSeq;
        this.tsRecent = tsRecent;
        this.tsRecentStamp = tsRecentStamp;
    }

    /** ICMP error about a segment we sent (RFC 1122 4.2.3.9, Linux tcp_v4_err). */
    void icmpError(int type, int code, int info, int seq) {
        if (!lock.runIfNotOwned(() -> TcpInput.icmpError(this, type, code, info, seq))) {
            tcp.mib.inc(MibCounter.TcpExtLockDroppedIcmps);
        }
    }

    /** Entry from the receive path for a segment of this connection. */
    void segmentArrived(PacketBuffer pkt) {
        long limit = (long) rcvbuf + sndbuf + 65536;
        if (!lock.backlogOrProcess(pkt, limit)) tcp.mib.inc(MibCounter.TcpExtTCPBacklogDrop);
    }

    @Override
    public String toString() { return "TcpConnection[" + state.ssName() + " " + tuple() + "]"; }
}
