package io.jnet.nio;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.MsgFlags;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.net.BindException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link SocketImpl} over a jnet TCP socket: what {@link java.net.Socket} and {@link java.net.ServerSocket}
 * run on when jnet's factories are installed ({@link JnetSockets#install()}) or when they come from
 * {@link JnetNetwork#socketFactory()} / {@link JnetNetwork#serverSocketFactory()}.
 *
 * <p>A client impl ({@code server} false) holds a jnet {@link TcpSocket}, a server impl a {@link TcpServerSocket};
 * an accepted connection's impl takes the listener's namespace, whatever the accepting thread's scope. The
 * namespace is the one given to the constructor, else the {@linkplain JnetNetwork#require scope's} at
 * {@link #create}: with neither, {@code create} throws the {@link SocketException} of
 * {@link JnetNetwork#require} and nothing falls back to the kernel.
 *
 * <p>Behaviour follows the JDK's own implementation ({@code sun.nio.ch.NioSocketImpl}, JDK 25) on Linux:
 * <ul>
 * <li>Blocking calls ({@code connect}, {@code accept}, {@code read}, {@code write}) use the jnet socket in
 * non-blocking mode and park the calling thread ({@link LockSupport}) until the socket's readiness changes, as
 * NioSocketImpl parks on its poller; nothing holds a monitor or makes a native call while waiting, so a
 * virtual thread waiting here unmounts from its carrier.</li>
 * <li>SO_TIMEOUT (milliseconds, 0 = none) bounds {@code read} and {@code accept}: {@link SocketTimeoutException}
 * "Read timed out" / "Accept timed out", the socket staying usable. {@code connect(address, millis)} with
 * {@code millis > 0} throws {@link SocketTimeoutException} "Connect timed out" and closes the socket.</li>
 * <li>{@link #close()} from another thread wakes a thread blocked in {@code connect}, {@code accept},
 * {@code read} or {@code write}: it gets {@link SocketException} "Socket closed" (a read that had returned
 * bytes keeps them).</li>
 * <li>Interrupts: a virtual thread interrupted while it waits in {@code connect} has the socket closed and gets
 * {@link SocketException} "Closed by interrupt"; in {@code accept}, {@code read} or {@code write} it gets an
 * {@link InterruptedIOException}, which {@code java.net.Socket} and {@code ServerSocket} turn into the same
 * (JDK 21 and later). A platform thread's interrupt does not end the wait (a blocking
 * read(2) is not interrupted either); its interrupt status is kept for the caller.</li>
 * <li>A socket whose namespace is closed fails with {@link SocketException} "jnet: namespace NAME is closed"
 * (blocked calls wake with it).</li>
 * <li>Errors are {@link ErrnoException}s in jnet and become what the JDK throws for the same errno:
 * ECONNREFUSED, ETIMEDOUT, ENOTCONN on connect: {@link ConnectException} ("Connection refused", ...);
 * EHOSTUNREACH: {@link NoRouteToHostException}; EADDRINUSE, EADDRNOTAVAIL: {@link BindException}; a reset
 * seen by {@code read}: {@link SocketException} "Connection reset" (and on every later read); otherwise a
 * {@link SocketException} with strerror's text ("Broken pipe", "Network is unreachable", ...).</li>
 * <li>Socket options: TCP_NODELAY, SO_LINGER (seconds), SO_SNDBUF and SO_RCVBUF (bytes; read back as the JDK
 * reports them on Linux, half of getsockopt's doubled value, so what was set within net.core.wmem_max /
 * rmem_max), SO_KEEPALIVE, SO_REUSEADDR and SO_TIMEOUT, and on a client the extended TCP_KEEPIDLE,
 * TCP_KEEPINTERVAL (seconds), TCP_KEEPCOUNT and TCP_QUICKACK, as jnet's options ({@link SocketOption}). jnet has
 * no IP_TOS nor SO_REUSEPORT: the typed {@code setOption}/{@code getOption} throw
 * {@link UnsupportedOperationException} for them (they are not in {@link #supportedOptions()}), the int-based
 * {@link #setOption(int, Object)}/{@link #getOption(int)} a {@link SocketException}. Urgent data as the
 * JDK's on Linux: {@link #sendUrgentData} sends one byte with MSG_OOB; SO_OOBINLINE, off by default, keeps
 * received urgent bytes in the stream, and without it they leave the stream (a read skips them; the JDK never
 * reads with MSG_OOB).</li>
 * <li>IPv4 only, as jnet: an IPv6 address is refused with a {@link SocketException}, but for the wildcard
 * {@code ::}, taken as 0.0.0.0. Connecting to the wildcard address goes to 127.0.0.1 (Linux's rule; the JDK
 * would look up the kernel's host name).</li>
 * </ul>
 *
 * <p>An impl that becomes unreachable without being closed has its jnet socket closed by a {@link Cleaner}, as
 * the JDK closes the file descriptor of a forgotten socket.
 */
public final class JnetSocketImpl extends SocketImpl {
    private static final int ST_NEW = 0;
    private static final int ST_UNCONNECTED = 1;
    private static final int ST_CONNECTING = 2;
    private static final int ST_CONNECTED = 3;
    private static final int ST_CLOSED = 4;


    private final boolean server;
    private final JnetNetwork fixedNetwork;

    /** Held by connect, accept and read, as NioSocketImpl's readLock. */
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Guards the state and the fields of SocketImpl; never held while a thread waits for the network. */
    private final ReentrantLock stateLock = new ReentrantLock();

    private volatile int state = ST_NEW;
    private volatile JnetNetwork network;
    private TcpSocket socket;
    private TcpServerSocket listener;
    private Cleaner.Cleanable cleanable;

    private volatile Thread readerThread;
    private volatile Thread writerThread;
    /** SO_TIMEOUT in milliseconds; 0 waits without limit. */
    private volatile int timeout;
    private volatile boolean inputClosed;
    private volatile boolean outputClosed;
    /** Guarded by readLock: read returned -1 once (later reads return -1 even after close, as the JDK). */
    private boolean readEof;
    /** Guarded by readLock: a read met a reset; every later read throws "Connection reset". */
    private boolean connectionReset;

    /**
     * An impl whose namespace is the scope's at {@link #create} ({@link JnetNetwork#require}).
     *
     * @param server true for a {@link java.net.ServerSocket}'s impl (listens and accepts), false for a
     *               {@link java.net.Socket}'s
     */
    public JnetSocketImpl(boolean server) {
        this(null, server);
    }

    /**
     * An impl that opens its socket in {@code network}'s namespace whatever the scope.
     *
     * @param network the network, or null for the scope's at {@link #create}
     * @param server  true for a {@link java.net.ServerSocket}'s impl, false for a {@link java.net.Socket}'s
     */
    public JnetSocketImpl(JnetNetwork network, boolean server) {
        this.fixedNetwork = network;
        this.server = server;
    }

    /** The network this impl's socket lives in; null before {@link #create} (or {@code accept}) set it. */
    public JnetNetwork network() {
        stateLock.lock();
        try {
            return network;
        } finally {
            stateLock.unlock();
        }
    }

    // ============================================================================================ state

    private boolean isOpen() { return state < ST_CLOSED; }

    private void ensureOpen() throws SocketException {
        int s = state;
        if (s == ST_NEW) throw new SocketException("Socket not created");
        if (s >= ST_CLOSED) throw new SocketException("Socket closed");
    }

    private void ensureOpenAndConnected() throws SocketException {
        int s = state;
        if (s < ST_CONNECTED) throw new SocketException("Not connected");
        if (s > ST_CONNECTED) throw new SocketException("Socket closed");
    }

    /** The jnet socket options apply to: the listener of a server impl, else the connection. */
    private PollableSocket jnetSocket() { return server ? listener : socket; }

    /**
     * Opens the jnet socket: a TCP listener for a server impl, a TCP socket otherwise, in the constructor's
     * network or else {@link JnetNetwork#require}'s.
     *
     * @param stream must be true: datagram sockets ({@code java.net.DatagramSocket}) are not covered
     * @throws SocketException for {@code stream == false}, when no network is in scope, or when the network's
     *                         namespace is closed
     * @throws IOException     "Already created" on a second call
     */
    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("jnet: datagram SocketImpls are not supported (java.net.DatagramSocket is "
                    + "not covered by jnet's factories)");
        }
        stateLock.lock();
        try {
            if (state != ST_NEW) throw new IOException("Already created");
            JnetNetwork net = fixedNetwork != null ? fixedNetwork
                    : JnetNetwork.require(server ? "ServerSocket" : "Socket");
            NetNamespace ns = net.namespace();
            if (ns.isClosed()) throw JnetNetwork.closedNamespace(ns);
            PollableSocket s;
            if (server) {
                listener = TcpServerSocket.open(ns);
                s = listener;
            } else {
                socket = TcpSocket.open(ns);
                s = socket;
            }
            s.setBlocking(false);
            network = net;
            cleanable = Cleaners.CLEANER.register(this, s::close);
            state = ST_UNCONNECTED;
        } finally {
            stateLock.unlock();
        }
    }

    // ========================================================================================== waiting

    /**
     * Waits until {@code s} reports one of {@code events} (or an error or hang-up), the impl is closed, the
     * deadline passes or (virtual threads) the thread is interrupted. May return early: callers retry their
     * operation and call again.
     *
     * @param deadline {@link System#nanoTime()} deadline, 0 for none
     * @param timedOut the message of the {@link SocketTimeoutException} thrown once the deadline has passed
     * @return true when the calling platform thread's interrupt status was cleared to wait (the caller sets it
     *         again when its operation ends, so the interrupt is not lost)
     * @throws SocketTimeoutException the deadline passed
     * @throws InterruptedIOException a virtual thread was interrupted
     */
    private boolean park(PollableSocket s, int events, long deadline, String timedOut) throws IOException {
        long nanos = 0;
        if (deadline != 0) {
            nanos = deadline - System.nanoTime();
            if (nanos <= 0) throw new SocketTimeoutException(timedOut);
        }
        Thread t = Thread.currentThread();
        boolean virtual = t.isVirtual();
        // a platform thread's pending interrupt would end every park at once: keep it aside for the caller
        boolean cleared = !virtual && Thread.interrupted();
        ReadinessListener wake = x -> LockSupport.unpark(t);
        s.addReadinessListener(wake);
        try {
            // readiness that came before the listener was there would never call it
            if (isOpen() && (s.readyEvents() & (events | Events.POLLERR | Events.POLLHUP)) == 0) {
                if (nanos == 0) LockSupport.park(this);
                else LockSupport.parkNanos(this, nanos);
            }
        } finally {
            s.removeReadinessListener(wake);
        }
        if (virtual) {
            if (t.isInterrupted()) throw new InterruptedIOException();
        } else {
            cleared |= Thread.interrupted();
        }
        return cleared;
    }

    private static void restoreInterrupt(boolean cleared) {
        if (cleared) Thread.currentThread().interrupt();
    }

    private static long deadline(long millis) {
        return millis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis) : 0;
    }

    // ========================================================================================== connect

    /**
     * Connects, waiting for the handshake up to {@code millis} milliseconds (0: as long as TCP tries, that is
     * net.ipv4.tcp_syn_retries). On any failure the socket is closed, as the JDK does.
     *
     * @throws IOException              "Unsupported address type" for a non-InetSocketAddress
     * @throws UnknownHostException     for an unresolved address
     * @throws SocketTimeoutException   "Connect timed out"
     * @throws ConnectException         "Connection refused", "Connection timed out"
     * @throws NoRouteToHostException   "No route to host"
     * @throws SocketException          "Socket closed" when closed meanwhile, "Already connected", "Network is
     *                                  unreachable", an IPv6 address, ...
     * @throws SocketException          "Closed by interrupt": a virtual thread was interrupted (the socket is closed)
     */
    @Override
    protected void connect(SocketAddress remote, int millis) throws IOException {
        if (!(remote instanceof InetSocketAddress isa)) throw new IOException("Unsupported address type");
        if (isa.isUnresolved()) throw new UnknownHostException(isa.getHostName());
        InetAddress address = isa.getAddress();
        int port = isa.getPort();
        try {
            readLock.lock();
            try {
                boolean connected = false;
                boolean cleared = false;
                beginConnect(address, port);
                try {
                    try {
                        socket.connect(NioErrors.inet4(new InetSocketAddress(address, port)));
                        connected = true;
                    } catch (ErrnoException e) {
                        if (e.errno() != Errno.EINPROGRESS) throw e;
                    }
                    long deadline = deadline(millis);
                    while (!connected && isOpen()) {
                        if (socket.finishConnect()) connected = true;
                        else cleared |= park(socket, Events.POLLOUT, deadline, "Connect timed out");
                    }
                } finally {
                    restoreInterrupt(cleared);
                    endConnect(connected);
                }
            } finally {
                readLock.unlock();
            }
        } catch (IOException e) {
            close();
            if (e instanceof SocketTimeoutException) throw e;
            // JDK 25's NioSocketImpl says so itself: java.net.Socket's connect passes the exception on unchanged
            if (e instanceof InterruptedIOException) throw new SocketException("Closed by interrupt");
            throw error(e, true);
        }
    }

    private void beginConnect(InetAddress address, int port) throws SocketException {
        stateLock.lock();
        try {
            switch (state) {
                case ST_UNCONNECTED -> { }
                case ST_NEW -> throw new SocketException("Not created");
                case ST_CONNECTING -> throw new SocketException("Connection in progress");
                case ST_CONNECTED -> throw new SocketException("Already connected");
                default -> throw new SocketException("Socket closed");
            }
            if (server) throw new SocketException("jnet: a ServerSocket's impl cannot connect");
            state = ST_CONNECTING;
            this.address = address;
            this.port = port;
            readerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    private void endConnect(boolean connected) throws SocketException {
        stateLock.lock();
        try {
            readerThread = null;
            if (connected && state == ST_CONNECTING) {
                state = ST_CONNECTED;
                localport = socket.localAddress().getPort();
            } else if (!connected && state == ST_CLOSED) {
                throw new SocketException("Socket closed");
            }
        } finally {
            stateLock.unlock();
        }
    }

    /** {@link #connect(SocketAddress, int)} without a timeout; the host is resolved by the JDK's resolver. */
    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    /** {@link #connect(SocketAddress, int)} without a timeout. */
    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        connect(new InetSocketAddress(address, port), 0);
    }

    // ============================================================================== bind, listen, accept

    /**
     * bind(2): {@code port} 0 picks an ephemeral port; the wildcard address binds every local address.
     *
     * @throws BindException   "Address already in use", "Cannot assign requested address"
     * @throws SocketException "Already bound", "Socket closed", an IPv6 address
     */
    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        stateLock.lock();
        try {
            ensureOpen();
            if (localport != 0) throw new SocketException("Already bound");
            InetSocketAddress local = NioErrors.inet4(new InetSocketAddress(host, port));
            try {
                if (server) listener.bind(local);
                else socket.bind(local);
            } catch (ErrnoException e) {
                throw error(e, true);
            }
            address = host;
            localport = server ? listener.localAddress().getPort() : socket.localAddress().getPort();
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * listen(2) with {@code backlog} connections (less than 1: 50, as the JDK; capped by net.core.somaxconn).
     *
     * @throws SocketException "Not bound", "Socket closed", or on a client impl
     * @throws BindException   "Address already in use" when another socket listens on the port
     */
    @Override
    protected void listen(int backlog) throws IOException {
        stateLock.lock();
        try {
            ensureOpen();
            if (!server) throw new SocketException("jnet: a Socket's impl cannot listen");
            if (localport == 0) throw new SocketException("Not bound");
            try {
                listener.listen(backlog < 1 ? 50 : backlog);
            } catch (ErrnoException e) {
                throw error(e, true);
            }
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Accepts the next connection into {@code si}, a newly made, not created {@code JnetSocketImpl}, which gets
     * the connection, this listener's network, and its address, port and localport fields. Waits up to
     * SO_TIMEOUT.
     *
     * @throws SocketTimeoutException "Accept timed out"
     * @throws SocketException        "Socket closed" (also when closed while waiting), "Not bound", an impl
     *                                that is not a new JnetSocketImpl
     * @throws InterruptedIOException a virtual thread was interrupted
     */
    @Override
    protected void accept(SocketImpl si) throws IOException {
        if (!(si instanceof JnetSocketImpl nsi)) {
            throw new SocketException("jnet: cannot accept a connection into a " + si.getClass().getName());
        }
        if (nsi.state != ST_NEW) throw new SocketException("Not a newly created SocketImpl");
        int millis = timeout;
        long deadline = deadline(millis);
        // several threads may accept on one listener: the wait for the lock counts against SO_TIMEOUT
        if (millis > 0) {
            if (!tryLock(readLock, deadline)) throw new SocketTimeoutException("Accept timed out");
        } else {
            readLock.lock();
        }
        TcpSocket c = null;
        try {
            boolean cleared = false;
            beginAccept();
            try {
                c = listener.accept();
                while (c == null && isOpen()) {
                    cleared |= park(listener, Events.POLLIN, deadline, "Accept timed out");
                    c = listener.accept();
                }
            } catch (ErrnoException e) {
                if (isOpen()) throw error(e, false);
            } finally {
                restoreInterrupt(cleared);
                endAccept(c != null);
            }
        } finally {
            readLock.unlock();
        }
        nsi.adopt(network, c);
    }

    /** As ReentrantLock.tryLock up to the deadline, waiting on through a platform thread's interrupt. */
    private static boolean tryLock(ReentrantLock lock, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                long nanos = deadline - System.nanoTime();
                if (nanos <= 0) return false;
                try {
                    return lock.tryLock(nanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private void beginAccept() throws SocketException {
        stateLock.lock();
        try {
            ensureOpen();
            if (!server) throw new SocketException("jnet: a Socket's impl cannot accept");
            if (localport == 0) throw new SocketException("Not bound");
            readerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    private void endAccept(boolean completed) throws SocketException {
        stateLock.lock();
        try {
            readerThread = null;
            if (!completed && state == ST_CLOSED) throw new SocketException("Socket closed");
        } finally {
            stateLock.unlock();
        }
    }

    /** Makes this new impl the owner of an accepted connection. */
    private void adopt(JnetNetwork net, TcpSocket c) throws SocketException {
        c.setBlocking(false);
        InetSocketAddress remote = c.remoteAddress();
        stateLock.lock();
        try {
            if (state != ST_NEW) {
                c.close();
                throw new SocketException("Not a newly created SocketImpl");
            }
            network = net;
            socket = c;
            cleanable = Cleaners.CLEANER.register(this, c::close);
            localport = c.localAddress().getPort();
            if (remote != null) {
                address = remote.getAddress();
                port = remote.getPort();
            }
            state = ST_CONNECTED;
        } finally {
            stateLock.unlock();
        }
    }

    // ======================================================================================= read/write

    private int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) return 0;
        readLock.lock();
        try {
            if (readEof) return -1; // as the JDK: -1 again, even once closed
            int n = implRead(b, off, len);
            if (n == -1) readEof = true;
            return n;
        } finally {
            readLock.unlock();
        }
    }

    private int implRead(byte[] b, int off, int len) throws IOException {
        int n = 0;
        boolean cleared = false;
        beginRead();
        try {
            if (connectionReset) throw new SocketException("Connection reset");
            if (inputClosed) return -1;
            long deadline = deadline(timeout);
            n = socket.read(b, off, len);
            while (n == 0 && isOpen()) {
                cleared |= park(socket, Events.POLLIN, deadline, "Read timed out");
                n = socket.read(b, off, len);
            }
            return n;
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ECONNRESET) {
                connectionReset = true;
                throw new SocketException("Connection reset");
            }
            throw error(e, false);
        } finally {
            restoreInterrupt(cleared);
            endRead(n > 0);
        }
    }

    private void beginRead() throws SocketException {
        stateLock.lock();
        try {
            ensureOpenAndConnected();
            readerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    private void endRead(boolean completed) throws SocketException {
        stateLock.lock();
        try {
            readerThread = null;
            if (!completed && state == ST_CLOSED) throw new SocketException("Socket closed");
        } finally {
            stateLock.unlock();
        }
    }

    private void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) return;
        writeLock.lock();
        try {
            int end = off + len;
            while (off < end) off += implWrite(b, off, end - off, 0);
        } finally {
            writeLock.unlock();
        }
    }

    private int implWrite(byte[] b, int off, int len, int flags) throws IOException {
        int n = 0;
        boolean cleared = false;
        beginWrite();
        try {
            n = socket.write(b, off, len, flags);
            while (n == 0 && isOpen()) {
                cleared |= park(socket, Events.POLLOUT, 0, null);
                n = socket.write(b, off, len, flags);
            }
            return n;
        } catch (ErrnoException e) {
            throw error(e, false);
        } finally {
            restoreInterrupt(cleared);
            endWrite(n > 0);
        }
    }

    private void beginWrite() throws SocketException {
        stateLock.lock();
        try {
            ensureOpenAndConnected();
            writerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    private void endWrite(boolean completed) throws SocketException {
        stateLock.lock();
        try {
            writerThread = null;
            if (!completed && state == ST_CLOSED) throw new SocketException("Socket closed");
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * The connection's bytes: {@code read} returns -1 at end of stream (then always), throws
     * {@link SocketTimeoutException} "Read timed out" after SO_TIMEOUT, {@link SocketException} "Socket closed"
     * or "Connection reset"; {@code close} closes the socket.
     */
    @Override
    protected InputStream getInputStream() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n > 0 ? one[0] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return JnetSocketImpl.this.read(b, off, len);
            }

            @Override
            public int available() throws IOException {
                return JnetSocketImpl.this.available();
            }

            @Override
            public void close() throws IOException {
                JnetSocketImpl.this.close();
            }
        };
    }

    /** Writes block until every byte is in the send buffer; errors as {@link #getInputStream()}'s. */
    @Override
    protected OutputStream getOutputStream() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                JnetSocketImpl.this.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                JnetSocketImpl.this.close();
            }
        };
    }

    /** Bytes readable without blocking (FIONREAD); 0 after {@link #shutdownInput()}. */
    @Override
    protected int available() throws IOException {
        stateLock.lock();
        try {
            ensureOpenAndConnected();
            return inputClosed ? 0 : socket.available();
        } finally {
            stateLock.unlock();
        }
    }

    // ==================================================================================== close, shutdown

    /**
     * Closes the jnet socket (FIN, or RST with SO_LINGER 0; a positive SO_LINGER waits for the send queue as
     * Linux's close does) and wakes the threads blocked on it, which get "Socket closed". Idempotent.
     */
    @Override
    protected void close() {
        stateLock.lock();
        try {
            int s = state;
            if (s == ST_CLOSED) return;
            state = ST_CLOSED;
            if (s == ST_NEW) return;
            cleanable.clean(); // closes the jnet socket, once
            Thread r = readerThread;
            Thread w = writerThread;
            if (r != null) LockSupport.unpark(r);
            if (w != null) LockSupport.unpark(w);
        } finally {
            stateLock.unlock();
        }
    }

    /** shutdown(SHUT_RD): later reads return -1, a blocked read returns -1. */
    @Override
    protected void shutdownInput() throws IOException {
        stateLock.lock();
        try {
            ensureOpenAndConnected();
            if (inputClosed) return;
            try {
                socket.shutdownInput();
            } catch (ErrnoException e) {
                throw error(e, false);
            }
            inputClosed = true;
        } finally {
            stateLock.unlock();
        }
    }

    /** shutdown(SHUT_WR): FIN once the queued bytes are sent; later writes fail with "Broken pipe". */
    @Override
    protected void shutdownOutput() throws IOException {
        stateLock.lock();
        try {
            ensureOpenAndConnected();
            if (outputClosed) return;
            try {
                socket.shutdownOutput();
            } catch (ErrnoException e) {
                throw error(e, false);
            }
            outputClosed = true;
        } finally {
            stateLock.unlock();
        }
    }

    /** True, as the JDK's NioSocketImpl: {@link #sendUrgentData} sends TCP urgent data. */
    @Override
    protected boolean supportsUrgentData() { return true; }

    /**
     * Sends the low 8 bits of {@code data} as one byte of TCP urgent data (send(2) with MSG_OOB, as the JDK's
     * NioSocketImpl), waiting for room in the send buffer.
     *
     * @throws SocketException "Socket closed", "Socket is not connected", or the connection's error
     */
    @Override
    protected void sendUrgentData(int data) throws IOException {
        byte[] b = {(byte) data};
        writeLock.lock();
        try {
            implWrite(b, 0, 1, MsgFlags.MSG_OOB); // waits for room; a close meanwhile throws "Socket closed"
        } finally {
            writeLock.unlock();
        }
    }

    // =========================================================================================== options

    /**
     * The typed options jnet has: SO_RCVBUF and SO_REUSEADDR on a server impl; SO_RCVBUF, SO_SNDBUF,
     * SO_REUSEADDR, SO_KEEPALIVE, SO_LINGER and TCP_NODELAY on a client impl.
     */
    @Override
    protected Set<java.net.SocketOption<?>> supportedOptions() {
        return server ? NioOptions.TCP_LISTENER : NioOptions.TCP;
    }

    /**
     * Sets a typed option (units as {@link StandardSocketOptions}: bytes, seconds for SO_LINGER, where a
     * negative value turns it off and values above 65535 are taken as 65535).
     *
     * @throws UnsupportedOperationException for an option not in {@link #supportedOptions()}
     * @throws IllegalArgumentException      for a value of the wrong type or a negative buffer size
     * @throws SocketException               "Socket closed", or jnet's refusal
     */
    @Override
    protected <T> void setOption(java.net.SocketOption<T> opt, T value) throws IOException {
        stateLock.lock();
        try {
            ensureOpen();
            NioOptions.set(supportedOptions(), opt, value, this::jset);
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Reads a typed option (SO_LINGER: seconds, -1 when off; buffer sizes as the JDK reads them on Linux, half of
     * getsockopt's doubled value).
     *
     * @throws UnsupportedOperationException for an option not in {@link #supportedOptions()}
     * @throws SocketException               "Socket closed"
     */
    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(java.net.SocketOption<T> opt) throws IOException {
        stateLock.lock();
        try {
            ensureOpen();
            return (T) NioOptions.get(supportedOptions(), opt, this::jget);
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * {@link java.net.SocketOptions} by number, as {@code Socket}/{@code ServerSocket}'s setters use them:
     * SO_TIMEOUT (milliseconds), SO_LINGER ({@code false} = off, else seconds), TCP_NODELAY, SO_SNDBUF and
     * SO_RCVBUF (bytes, above 0), SO_KEEPALIVE, SO_REUSEADDR, SO_OOBINLINE.
     *
     * @throws SocketException "Socket closed", a bad value, IP_TOS and SO_REUSEPORT (jnet has neither), an
     *                         unknown option
     */
    @Override
    public void setOption(int opt, Object value) throws SocketException {
        stateLock.lock();
        try {
            ensureOpen();
            switch (opt) {
                case SO_TIMEOUT -> {
                    int ms = intValue(value, "SO_TIMEOUT");
                    if (ms < 0) throw new SocketException("timeout < 0");
                    timeout = ms;
                }
                case SO_LINGER -> typed(StandardSocketOptions.SO_LINGER, value instanceof Boolean b && !b ? -1 : intValue(value, "SO_LINGER"));
                case TCP_NODELAY -> jset(SocketOption.TCP_NODELAY, booleanValue(value, "TCP_NODELAY"));
                case SO_SNDBUF -> {
                    int n = intValue(value, "SO_SNDBUF");
                    if (n <= 0) throw new SocketException("SO_SNDBUF <= 0");
                    jset(SocketOption.SO_SNDBUF, n);
                }
                case SO_RCVBUF -> {
                    int n = intValue(value, "SO_RCVBUF");
                    if (n <= 0) throw new SocketException("SO_RCVBUF <= 0");
                    jset(SocketOption.SO_RCVBUF, n);
                }
                case SO_KEEPALIVE -> jset(SocketOption.SO_KEEPALIVE, booleanValue(value, "SO_KEEPALIVE"));
                case SO_REUSEADDR -> jset(SocketOption.SO_REUSEADDR, booleanValue(value, "SO_REUSEADDR"));
                case SO_OOBINLINE -> jset(SocketOption.SO_OOBINLINE, booleanValue(value, "SO_OOBINLINE"));
                case IP_TOS -> throw new SocketException("jnet: IP_TOS is not supported");
                case SO_REUSEPORT -> throw new SocketException("SO_REUSEPORT not supported");
                default -> throw new SocketException("Unknown option " + opt);
            }
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Reads a {@link java.net.SocketOptions} option by number: SO_TIMEOUT (milliseconds), SO_LINGER
     * ({@code Boolean.FALSE} when off, else seconds), SO_BINDADDR (the local {@link InetAddress}), TCP_NODELAY,
     * SO_SNDBUF, SO_RCVBUF (bytes), SO_KEEPALIVE, SO_REUSEADDR, SO_OOBINLINE.
     *
     * @throws SocketException "Socket closed", IP_TOS and SO_REUSEPORT, an unknown option
     */
    @Override
    public Object getOption(int opt) throws SocketException {
        stateLock.lock();
        try {
            ensureOpen();
            return switch (opt) {
                case SO_TIMEOUT -> timeout;
                case SO_LINGER -> {
                    int s = (Integer) typed(StandardSocketOptions.SO_LINGER);
                    yield s < 0 ? (Object) Boolean.FALSE : (Object) s;
                }
                case SO_BINDADDR -> server ? listener.localAddress().getAddress() : socket.localAddress().getAddress();
                case TCP_NODELAY -> jget(SocketOption.TCP_NODELAY);
                case SO_SNDBUF -> typed(StandardSocketOptions.SO_SNDBUF);
                case SO_RCVBUF -> typed(StandardSocketOptions.SO_RCVBUF);
                case SO_KEEPALIVE -> jget(SocketOption.SO_KEEPALIVE);
                case SO_REUSEADDR -> jget(SocketOption.SO_REUSEADDR);
                case SO_OOBINLINE -> jget(SocketOption.SO_OOBINLINE);
                case IP_TOS -> throw new SocketException("jnet: IP_TOS is not supported");
                case SO_REUSEPORT -> throw new SocketException("SO_REUSEPORT not supported");
                default -> throw new SocketException("Unknown option " + opt);
            };
        } finally {
            stateLock.unlock();
        }
    }

    /** A typed option's value in the JDK's units ({@link NioOptions}), for the int-keyed calls. */
    private Object typed(java.net.SocketOption<?> opt) throws SocketException {
        return NioOptions.fromJnet(opt, jget(NioOptions.jnet(opt)));
    }

    /** Sets a typed option from the JDK's units ({@link NioOptions}), for the int-keyed calls. */
    @SuppressWarnings("unchecked")
    private void typed(java.net.SocketOption<?> opt, Object value) throws SocketException {
        jset((SocketOption<Object>) NioOptions.jnet(opt), NioOptions.toJnet(opt, value));
    }

    private <T> void jset(SocketOption<T> option, T value) throws SocketException {
        try {
            if (server) listener.setOption(option, value);
            else socket.setOption(option, value);
        } catch (IOException e) {
            throw error(e, false);
        }
    }

    private <T> T jget(SocketOption<T> option) throws SocketException {
        try {
            return server ? listener.getOption(option) : socket.getOption(option);
        } catch (IOException e) {
            throw error(e, false);
        }
    }

    private static int intValue(Object value, String name) throws SocketException {
        if (!(value instanceof Integer i)) throw new SocketException("Bad value for " + name);
        return i;
    }

    private static boolean booleanValue(Object value, String name) throws SocketException {
        if (!(value instanceof Boolean b)) throw new SocketException("Bad value for " + name);
        return b;
    }

    // ============================================================================================ errors

    /**
     * {@link #toSocketException}, but for the failures of a namespace that was closed (jnet aborts its
     * connections with ECONNABORTED and closes its listeners): {@link SocketException} "jnet: namespace NAME is
     * closed".
     */
    private SocketException error(IOException e, boolean connecting) {
        JnetNetwork net = network;
        if (!(e instanceof SocketException) && net != null && net.namespace().isClosed()) {
            SocketException closed = new SocketException("jnet: namespace " + net.namespace().name() + " is closed");
            closed.initCause(e);
            return closed;
        }
        return toSocketException(e, connecting);
    }

    /**
     * The java.net exception the JDK throws for the same failure: jnet's errno as the JDK's
     * handleSocketError maps it (for connect, bind, listen) or as a SocketException with strerror's text
     * (for data transfer); other IOExceptions become SocketExceptions with their message.
     */
    private static SocketException toSocketException(IOException e, boolean connecting) {
        if (e instanceof SocketException se) return se;
        SocketException out;
        if (e instanceof ErrnoException ee) {
            // connect's mapping (handleSocketError), else bind's: BindException for the address errors, a
            // SocketException with strerror's text for the rest
            out = connecting ? NioErrors.connect(ee) : NioErrors.bind(ee);
            if (out.getCause() == null) out.initCause(e);
            return out;
        } else {
            out = new SocketException(e.getMessage());
        }
        out.initCause(e);
        return out;
    }

    @Override
    public String toString() {
        return "JnetSocketImpl[" + (server ? "server " : "") + super.toString() + "]";
    }

    /** One cleaner for all impls, made at the first socket. */
    private static final class Cleaners {
        static final Cleaner CLEANER = Cleaner.create();
    }
}
