package io.jnet.nio;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.Clock;
import io.jnet.socket.ByteStreamSocket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link SocketChannel} on a jnet TCP socket or local stream socket (the {@code UNIX} family, with
 * {@link java.net.UnixDomainSocketAddress}es naming entries of the namespace's own table), with the JDK's semantics: blocking and non-blocking
 * modes, one reader and one writer at a time (each may block while the other works), an asynchronous
 * {@link #close()} or an interrupt ending a blocked call with {@link java.nio.channels.AsynchronousCloseException}
 * or {@link ClosedByInterruptException} (the interrupt also closes the channel), a failed connect closing the
 * channel, and {@link #socket()} a working {@link Socket} over it.
 *
 * <p>Errors: {@link java.net.ConnectException} "Connection refused" / "Connection timed out",
 * {@link java.net.NoRouteToHostException}, {@link java.net.BindException}, {@link SocketException}
 * "Connection reset", {@link IOException} "Broken pipe", as the JDK's channels on Linux.
 */
final class JnetSocketChannel extends SocketChannel implements PollableChannel {
    private static final int ST_UNCONNECTED = 0, ST_PENDING = 1, ST_CONNECTED = 2;

    private final StreamEndpoint endpoint;
    private final Clock clock;
    private final ByteStreamSocket socket;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private volatile int state;
    private volatile boolean inputShutdown, outputShutdown;
    private volatile SocketAddress localAddress, remoteAddress;
    /** SO_RCVTIMEO now set on the socket for the adaptor's timed reads, in ms (0 none); guarded by readLock. */
    private int socketReadTimeoutMillis;
    private Socket adaptor; // guarded by stateLock

    /** An unconnected channel whose timeouts count on {@code clock} (its namespace's). */
    JnetSocketChannel(JnetSelectorProvider provider, StreamEndpoint endpoint, Clock clock) {
        super(provider);
        this.clock = clock;
        this.endpoint = endpoint;
        this.socket = endpoint.socket();
        socket.setBlocking(true);
    }

    /** A channel for a connection a server channel accepted. */
    JnetSocketChannel(JnetSelectorProvider provider, StreamEndpoint accepted, Clock clock, boolean connected) {
        this(provider, accepted, clock);
        if (connected) {
            state = ST_CONNECTED;
            localAddress = accepted.localAddress();
            remoteAddress = accepted.remoteAddress();
        }
    }

    /** Bytes readable now without blocking (FIONREAD). */
    int available() { return socket.available(); }

    /** True for a TCP channel, false for a local (UNIX) one. */
    boolean isInet() { return endpoint instanceof StreamEndpoint.Tcp; }

    // ------------------------------------------------------------------ state

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) throw new ClosedChannelException();
    }

    private void ensureConnected() throws ClosedChannelException {
        ensureOpen();
        if (state != ST_CONNECTED) throw new NotYetConnectedException();
    }

    @Override
    public boolean isConnected() { return state == ST_CONNECTED; }

    @Override
    public boolean isConnectionPending() { return state == ST_PENDING; }

    boolean isInputOpen() { return !inputShutdown; }

    boolean isOutputOpen() { return !outputShutdown; }

    /**
     * Ends a call that may have blocked: {@link #end} throws {@link ClosedByInterruptException} or
     * {@link java.nio.channels.AsynchronousCloseException}; a call that did not complete on an interrupted thread
     * closes the channel and throws ClosedByInterruptException even where the interrupt came before the
     * channel's interruptor ran.
     */
    private void endBlocking(boolean blocking, boolean completed) throws IOException {
        if (!blocking) return;
        end(completed);
        if (!completed && Thread.currentThread().isInterrupted()) {
            close();
            throw new ClosedByInterruptException();
        }
    }

    // ------------------------------------------------------------------ bind, connect

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    ensureOpen();
                    if (state == ST_PENDING) throw new ConnectionPendingException();
                    if (localAddress != null) throw new AlreadyBoundException();
                    SocketAddress sa = endpoint.localForm(local == null ? endpoint.unnamedLocal() : local);
                    try {
                        endpoint.bind(sa);
                    } catch (ErrnoException e) {
                        throw NioErrors.bind(e);
                    }
                    localAddress = endpoint.localAddress();
                }
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
        return this;
    }

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        return connect(remote, 0);
    }

    /**
     * connect(2); {@code timeoutMillis} above 0 bounds a blocking connect (the adaptor's
     * {@link Socket#connect(SocketAddress, int)}), ending it with {@link SocketTimeoutException} and the channel
     * closed.
     */
    boolean connect(SocketAddress remote, int timeoutMillis) throws IOException {
        Objects.requireNonNull(remote, "remote");
        readLock.lock();
        try {
            writeLock.lock();
            try {
                SocketAddress isa;
                synchronized (stateLock) {
                    ensureOpen();
                    if (state == ST_CONNECTED) throw new AlreadyConnectedException();
                    if (state == ST_PENDING) throw new ConnectionPendingException();
                    isa = endpoint.remoteForm(remote);
                    state = ST_PENDING;
                    remoteAddress = isa;
                }
                boolean blocking = isBlocking();
                boolean connected = false;
                IOException failure = null;
                try {
                    if (blocking) begin();
                    if (blocking && timeoutMillis > 0) {
                        socket.setBlocking(false);
                        try {
                            connected = startConnect(isa);
                        } finally {
                            socket.setBlocking(true);
                        }
                        if (!connected) connected = awaitConnect(timeoutMillis);
                    } else {
                        connected = startConnect(isa);
                    }
                } catch (ErrnoException e) {
                    if (isOpen()) failure = NioErrors.connect(e);
                } catch (SocketTimeoutException e) {
                    failure = e;
                } catch (InterruptedIOException e) {
                    // interrupted: endBlocking throws
                } finally {
                    endBlocking(blocking, connected);
                }
                if (failure != null) {
                    close();
                    throw failure;
                }
                if (connected) {
                    synchronized (stateLock) {
                        state = ST_CONNECTED;
                        localAddress = endpoint.localAddress();
                    }
                    return true;
                }
                if (blocking) { // closed meanwhile without an exception from end (cannot happen): say so
                    throw new ClosedChannelException();
                }
                return false;
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    /** Starts the handshake: true when it completed (blocking socket), false when in progress (non-blocking). */
    private boolean startConnect(SocketAddress sa) throws IOException {
        return endpoint.connect(sa);
    }

    /** Waits for a connect in progress up to {@code timeoutMillis}; true when established. */
    private boolean awaitConnect(int timeoutMillis) throws IOException {
        long deadline = clock.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            if (endpoint.finishConnect()) return true;
            if (!isOpen() || Thread.currentThread().isInterrupted()) return false;
            if (deadline - clock.nanoTime() <= 0) throw new SocketTimeoutException("Connect timed out");
            ReadinessWait.await(socket, Events.POLLOUT | Events.POLLERR | Events.POLLHUP, clock, deadline);
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    ensureOpen();
                    if (state == ST_CONNECTED) return true;
                    if (state != ST_PENDING) throw new NoConnectionPendingException();
                }
                boolean blocking = isBlocking();
                boolean connected = false;
                IOException failure = null;
                try {
                    if (blocking) begin();
                    connected = endpoint.finishConnect();
                    while (!connected && blocking && isOpen() && !Thread.currentThread().isInterrupted()) {
                        ReadinessWait.await(socket, Events.POLLOUT | Events.POLLERR | Events.POLLHUP, clock, 0L);
                        connected = endpoint.finishConnect();
                    }
                } catch (ErrnoException e) {
                    if (isOpen()) failure = NioErrors.connect(e);
                } finally {
                    endBlocking(blocking, connected);
                }
                if (failure != null) {
                    close();
                    throw failure;
                }
                if (connected) {
                    synchronized (stateLock) {
                        state = ST_CONNECTED;
                        localAddress = endpoint.localAddress();
                    }
                }
                return connected;
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    // ------------------------------------------------------------------ read

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
        readLock.lock();
        try {
            ensureConnected();
            if (inputShutdown) return -1;
            if (!dst.hasRemaining()) return 0;
            return readLocked(dst, isBlocking());
        } finally {
            readLock.unlock();
        }
    }

    private int readLocked(ByteBuffer dst, boolean blocking) throws IOException {
        int n = 0;
        try {
            if (blocking) begin();
            n = endpoint.read(dst);
        } catch (ErrnoException e) {
            if (isOpen()) {
                if (e.errno() == Errno.EAGAIN && blocking) throw new SocketTimeoutException("Read timed out");
                throw NioErrors.io(e);
            }
        } catch (InterruptedIOException e) {
            // interrupted: endBlocking throws
        } finally {
            endBlocking(blocking, n > 0);
        }
        if (n <= 0 && inputShutdown) return -1;
        return n;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
        }
        readLock.lock();
        try {
            ensureConnected();
            if (inputShutdown) return -1;
            boolean blocking = isBlocking();
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                ByteBuffer b = dsts[i];
                if (!b.hasRemaining()) continue;
                // the first read may block; later ones take only what is there, as readv(2)
                if (total > 0 && socket.available() == 0) break;
                int n = readLocked(b, blocking && total == 0);
                if (n < 0) return total > 0 ? total : -1;
                total += n;
                if (b.hasRemaining()) break;
            }
            return total;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * The adaptor's blocking read: as {@link #read(ByteBuffer)} in blocking mode, ending after
     * {@code timeoutMillis} (when above 0) with {@link SocketTimeoutException} "Read timed out", the channel
     * still open.
     *
     * @throws IllegalBlockingModeException when the channel is in non-blocking mode
     */
    int blockingRead(ByteBuffer dst, int timeoutMillis) throws IOException {
        readLock.lock();
        try {
            ensureConnected();
            if (!isBlocking()) throw new IllegalBlockingModeException();
            if (inputShutdown) return -1;
            if (!dst.hasRemaining()) return 0;
            if (timeoutMillis != socketReadTimeoutMillis) {
                try {
                    endpoint.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(Math.max(timeoutMillis, 0)));
                } catch (ErrnoException e) {
                    throw NioErrors.io(e);
                }
                socketReadTimeoutMillis = timeoutMillis;
            }
            return readLocked(dst, true);
        } finally {
            readLock.unlock();
        }
    }

    // ------------------------------------------------------------------ write

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        writeLock.lock();
        try {
            ensureConnected();
            if (outputShutdown) throw new ClosedChannelException();
            if (!src.hasRemaining()) return 0;
            return writeLocked(src, isBlocking());
        } finally {
            writeLock.unlock();
        }
    }

    private int writeLocked(ByteBuffer src, boolean blocking) throws IOException {
        int start = src.position();
        boolean completed = false;
        try {
            if (blocking) begin();
            endpoint.write(src);
            completed = true;
        } catch (ErrnoException e) {
            if (isOpen()) throw NioErrors.write(e);
        } catch (InterruptedIOException e) {
            // interrupted: endBlocking throws
        } finally {
            endBlocking(blocking, completed || src.position() > start);
        }
        return src.position() - start;
    }

    /** The adaptor's blocking write: all of {@code src}; IllegalBlockingModeException in non-blocking mode. */
    void blockingWrite(ByteBuffer src) throws IOException {
        writeLock.lock();
        try {
            ensureConnected();
            if (!isBlocking()) throw new IllegalBlockingModeException();
            if (outputShutdown) throw new SocketException("Socket output is shutdown");
            while (src.hasRemaining()) writeLocked(src, true);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        writeLock.lock();
        try {
            ensureConnected();
            if (outputShutdown) throw new ClosedChannelException();
            boolean blocking = isBlocking();
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                ByteBuffer b = srcs[i];
                if (!b.hasRemaining()) continue;
                int want = b.remaining();
                int n = writeLocked(b, blocking);
                total += n;
                if (n < want) break; // non-blocking and the send buffer is full
            }
            return total;
        } finally {
            writeLock.unlock();
        }
    }

    // ------------------------------------------------------------------ shutdown, addresses, options

    @Override
    public SocketChannel shutdownInput() throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (state != ST_CONNECTED) throw new NotYetConnectedException();
            if (!inputShutdown) {
                try {
                    endpoint.shutdownInput();
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.ENOTCONN) throw NioErrors.io(e);
                }
                inputShutdown = true;
            }
        }
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (state != ST_CONNECTED) throw new NotYetConnectedException();
            if (!outputShutdown) {
                try {
                    endpoint.shutdownOutput();
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.ENOTCONN) throw NioErrors.io(e);
                }
                outputShutdown = true;
            }
        }
        return this;
    }

    /**
     * {@inheritDoc} A local (UNIX) channel has none: UnsupportedOperationException, as the JDK's.
     */
    @Override
    public Socket socket() {
        if (!isInet()) throw new UnsupportedOperationException("Not supported");
        synchronized (stateLock) {
            if (adaptor == null) adaptor = JnetSocketAdaptor.create(this);
            return adaptor;
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return localAddress;
    }

    /** The local address without the open check (the adaptor's; TCP channels only). */
    InetSocketAddress localAddress() { return (InetSocketAddress) localAddress; }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return remoteAddress;
    }

    InetSocketAddress remoteAddress() { return (InetSocketAddress) remoteAddress; }

    @Override
    public <T> SocketChannel setOption(java.net.SocketOption<T> name, T value) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            try {
                NioOptions.set(endpoint.supportedOptions(), name, value, endpoint::setOption);
            } catch (ErrnoException e) {
                throw NioErrors.io(e);
            }
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(java.net.SocketOption<T> name) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            try {
                return (T) NioOptions.get(endpoint.supportedOptions(), name, endpoint::getOption);
            } catch (ErrnoException e) {
                throw NioErrors.io(e);
            }
        }
    }

    @Override
    public Set<java.net.SocketOption<?>> supportedOptions() { return endpoint.supportedOptions(); }

    /**
     * SO_OOBINLINE for the adaptor ({@link #socket()}), which sets it on the socket as the JDK's SocketAdaptor does
     * (it is not among a channel's options): on a TCP channel jnet's {@link SocketOption#SO_OOBINLINE}; null on a
     * local stream socket, which has no urgent data.
     *
     * @param on the value to set, or null to read it only
     * @return the value in force, or null when the endpoint has none
     */
    Boolean oobInline(Boolean on) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (!(endpoint instanceof StreamEndpoint.Tcp)) return null;
            if (on != null) endpoint.setOption(SocketOption.SO_OOBINLINE, on);
            return endpoint.getOption(SocketOption.SO_OOBINLINE);
        }
    }

    // ------------------------------------------------------------------ selection, close

    @Override
    public PollableSocket pollable() { return socket; }

    @Override
    public int pollInterest(int ops) {
        int ev = 0;
        if ((ops & SelectionKey.OP_READ) != 0) ev |= Events.POLLIN;
        if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) ev |= Events.POLLOUT;
        return ev;
    }

    @Override
    public int readyOps(int events, int interestOps) {
        if ((events & (Events.POLLERR | Events.POLLHUP)) != 0) return interestOps;
        int ops = 0;
        boolean connected = state == ST_CONNECTED;
        if ((events & Events.POLLIN) != 0 && (interestOps & SelectionKey.OP_READ) != 0 && connected)
            ops |= SelectionKey.OP_READ;
        if ((events & Events.POLLOUT) != 0 && (interestOps & SelectionKey.OP_CONNECT) != 0 && state == ST_PENDING)
            ops |= SelectionKey.OP_CONNECT;
        if ((events & Events.POLLOUT) != 0 && (interestOps & SelectionKey.OP_WRITE) != 0 && connected)
            ops |= SelectionKey.OP_WRITE;
        return ops;
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                ensureOpen();
                socket.setBlocking(block);
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    @Override
    protected void implCloseSelectableChannel() {
        socket.close(); // wakes threads blocked in it; they find the channel closed
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(getClass().getSuperclass().getName()).append('[');
        if (!isOpen()) sb.append("closed");
        else {
            sb.append(switch (state) {
                case ST_PENDING -> "connection-pending";
                case ST_CONNECTED -> "connected";
                default -> "unconnected";
            });
            if (inputShutdown) sb.append(" ishut");
            if (outputShutdown) sb.append(" oshut");
            if (localAddress != null) sb.append(" local=").append(localAddress);
            if (remoteAddress != null) sb.append(" remote=").append(remoteAddress);
        }
        return sb.append(']').toString();
    }
}
