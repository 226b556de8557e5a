package io.jnet.nio;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.Clock;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ServerSocketChannel} on a jnet TCP listener or local (UNIX) listener: {@code bind} binds and listens (backlog below
 * 1 means 50, as the JDK; capped by {@code net.core.somaxconn}), {@code accept} gives a connected
 * {@link SocketChannel} in blocking mode, or null when non-blocking and none is waiting. An asynchronous close or
 * an interrupt ends a blocked accept as {@link java.nio.channels.AsynchronousCloseException} /
 * {@link ClosedByInterruptException}.
 */
final class JnetServerSocketChannel extends ServerSocketChannel implements PollableChannel {
    private final JnetSelectorProvider provider;
    private final ListenEndpoint endpoint;
    private final Clock clock;
    private final PollableSocket socket;
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private volatile SocketAddress localAddress;
    /** SO_RCVTIMEO now set for the adaptor's timed accepts, in ms; guarded by acceptLock. */
    private int socketAcceptTimeoutMillis;
    private ServerSocket adaptor; // guarded by stateLock

    JnetServerSocketChannel(JnetSelectorProvider provider, ListenEndpoint endpoint, Clock clock) {
        super(provider);
        this.clock = clock;
        this.provider = provider;
        this.endpoint = endpoint;
        this.socket = endpoint.socket();
        socket.setBlocking(true);
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) throw new ClosedChannelException();
    }

    boolean isBound() { return localAddress != null; }

    /** The local address without the open check (the adaptor's; TCP channels only). */
    InetSocketAddress localAddress() { return (InetSocketAddress) localAddress; }

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (localAddress != null) throw new AlreadyBoundException();
            SocketAddress sa = endpoint.localForm(local == null ? endpoint.unnamedLocal() : local);
            try {
                endpoint.bindAndListen(sa, backlog < 1 ? 50 : backlog);
            } catch (ErrnoException e) {
                throw NioErrors.bind(e);
            }
            localAddress = endpoint.localAddress();
        }
        return this;
    }

    @Override
    public SocketChannel accept() throws IOException {
        acceptLock.lock();
        try {
            return acceptLocked(isBlocking());
        } finally {
            acceptLock.unlock();
        }
    }

    private SocketChannel acceptLocked(boolean blocking) throws IOException {
        ensureOpen();
        if (localAddress == null) throw new NotYetBoundException();
        StreamEndpoint s = null;
        try {
            if (blocking) begin();
            s = endpoint.accept();
        } catch (ErrnoException e) {
            if (isOpen()) {
                if (e.errno() == Errno.EAGAIN && blocking) throw new SocketTimeoutException("Accept timed out");
                throw NioErrors.io(e);
            }
        } catch (InterruptedIOException e) {
            // interrupted: end throws
        } finally {
            if (blocking) {
                end(s != null);
                if (s == null && Thread.currentThread().isInterrupted()) {
                    close();
                    throw new ClosedByInterruptException();
                }
            }
        }
        if (s == null) return null;
        return new JnetSocketChannel(provider, s, clock, true);
    }

    /** The adaptor's accept: blocking, bounded by {@code timeoutMillis} when above 0 ("Accept timed out"). */
    SocketChannel blockingAccept(int timeoutMillis) throws IOException {
        acceptLock.lock();
        try {
            if (!isBlocking()) throw new IllegalBlockingModeException();
            if (timeoutMillis != socketAcceptTimeoutMillis) {
                try {
                    endpoint.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(Math.max(timeoutMillis, 0)));
                } catch (ErrnoException e) {
                    throw NioErrors.io(e);
                }
                socketAcceptTimeoutMillis = timeoutMillis;
            }
            return acceptLocked(true);
        } finally {
            acceptLock.unlock();
        }
    }

    /** {@inheritDoc} A local (UNIX) channel has none: UnsupportedOperationException, as the JDK's. */
    @Override
    public ServerSocket socket() {
        if (!(endpoint instanceof ListenEndpoint.Tcp)) throw new UnsupportedOperationException("Not supported");
        synchronized (stateLock) {
            if (adaptor == null) adaptor = new JnetServerSocketAdaptor(this);
            return adaptor;
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return localAddress;
    }

    @Override
    public <T> ServerSocketChannel setOption(java.net.SocketOption<T> name, T value) throws IOException {
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

    @Override
    public PollableSocket pollable() { return socket; }

    @Override
    public int pollInterest(int ops) {
        return (ops & SelectionKey.OP_ACCEPT) != 0 ? Events.POLLIN : 0;
    }

    @Override
    public int readyOps(int events, int interestOps) {
        if ((events & (Events.POLLERR | Events.POLLHUP)) != 0) return interestOps;
        return (events & Events.POLLIN) != 0 ? interestOps & SelectionKey.OP_ACCEPT : 0;
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        acceptLock.lock();
        try {
            ensureOpen();
            socket.setBlocking(block);
        } finally {
            acceptLock.unlock();
        }
    }

    @Override
    protected void implCloseSelectableChannel() {
        socket.close();
    }

    @Override
    public String toString() {
        return getClass().getSuperclass().getName() + "[" + (!isOpen() ? "closed" : localAddress == null ? "unbound" : localAddress.toString()) + "]";
    }
}
