package io.jnet.nio;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.SocketOption;
import io.jnet.socket.UdpSocket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.MembershipKey;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link DatagramChannel} on a jnet {@link UdpSocket}, with the JDK's semantics: {@code send} and
 * {@code receive} bind to an ephemeral port first when unbound; a datagram longer than the buffer's remaining
 * space is cut and the rest discarded; {@code connect} filters what is received to that peer and makes
 * {@code read}/{@code write} usable; on a connected channel an ICMP port unreachable from the peer surfaces as
 * {@link PortUnreachableException} on the next read, receive or write (Linux's ECONNREFUSED). Blocking calls end
 * on an asynchronous close or an interrupt as for every interruptible channel. Multicast is not available
 * (jnet has no IGMP): {@code join} throws UnsupportedOperationException.
 */
final class JnetDatagramChannel extends DatagramChannel implements PollableChannel {
    private static final Set<java.net.SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_REUSEADDR);

    private final UdpSocket socket;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private volatile InetSocketAddress localAddress, remoteAddress;
    /** SO_RCVTIMEO set on the socket for the adaptor's timed receives, in ms; guarded by readLock. */
    private int socketReadTimeoutMillis;
    private DatagramSocket adaptor; // guarded by stateLock

    JnetDatagramChannel(JnetSelectorProvider provider, UdpSocket socket) {
        super(provider);
        this.socket = socket;
        socket.setBlocking(true);
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) throw new ClosedChannelException();
    }

    private void endBlocking(boolean blocking, boolean completed) throws IOException {
        if (!blocking) return;
        end(completed);
        if (!completed && Thread.currentThread().isInterrupted()) {
            close();
            throw new ClosedByInterruptException();
        }
    }

    private IOException translate(ErrnoException e) {
        if (e.errno() == Errno.ECONNREFUSED) return new PortUnreachableException("ICMP Port Unreachable");
        return NioErrors.io(e);
    }

    @Override
    public DatagramChannel bind(SocketAddress local) throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    ensureOpen();
                    if (localAddress != null) throw new AlreadyBoundException();
                    bindLocked(local == null ? new InetSocketAddress(0) : NioErrors.inet4(local));
                }
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
        return this;
    }

    private void bindLocked(InetSocketAddress isa) throws IOException {
        try {
            socket.bind(isa);
        } catch (ErrnoException e) {
            throw NioErrors.bind(e);
        }
        localAddress = socket.localAddress();
    }

    /** Binds to an ephemeral port when still unbound (the JDK's send and receive do). */
    private void implicitBind() throws IOException {
        if (localAddress != null) return;
        synchronized (stateLock) {
            if (localAddress == null) bindLocked(new InetSocketAddress(0));
        }
    }

    @Override
    public boolean isConnected() { return remoteAddress != null; }

    @Override
    public DatagramChannel connect(SocketAddress remote) throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    ensureOpen();
                    InetSocketAddress isa = NioErrors.inet4(remote);
                    if (isa.getAddress().isAnyLocalAddress())
                        isa = new InetSocketAddress(InetAddress.getLoopbackAddress(), isa.getPort());
                    try {
                        socket.connect(isa);
                    } catch (ErrnoException e) {
                        throw NioErrors.connect(e);
                    }
                    remoteAddress = isa;
                    localAddress = socket.localAddress();
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
    public DatagramChannel disconnect() throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    if (!isOpen() || remoteAddress == null) return this;
                    try {
                        socket.connect(null); // connect(AF_UNSPEC)
                    } catch (ErrnoException e) {
                        throw NioErrors.io(e);
                    }
                    remoteAddress = null;
                    localAddress = socket.localAddress();
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
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
        readLock.lock();
        try {
            ensureOpen();
            implicitBind();
            return receiveLocked(dst, isBlocking());
        } finally {
            readLock.unlock();
        }
    }

    private SocketAddress receiveLocked(ByteBuffer dst, boolean blocking) throws IOException {
        UdpSocket.Datagram d = null;
        try {
            if (blocking) begin();
            d = socket.receive(dst);
        } catch (ErrnoException e) {
            if (isOpen()) {
                if (e.errno() == Errno.EAGAIN && blocking) throw new SocketTimeoutException("Receive timed out");
                throw translate(e);
            }
        } catch (InterruptedIOException e) {
            // interrupted: endBlocking throws
        } finally {
            endBlocking(blocking, d != null);
        }
        return d == null ? null : d.sender();
    }

    /** The adaptor's receive: blocking, bounded by {@code timeoutMillis} when above 0 ("Receive timed out"). */
    SocketAddress blockingReceive(ByteBuffer dst, int timeoutMillis) throws IOException {
        readLock.lock();
        try {
            ensureOpen();
            if (!isBlocking()) throw new IllegalBlockingModeException();
            implicitBind();
            if (timeoutMillis != socketReadTimeoutMillis) {
                try {
                    socket.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(Math.max(timeoutMillis, 0)));
                } catch (ErrnoException e) {
                    throw NioErrors.io(e);
                }
                socketReadTimeoutMillis = timeoutMillis;
            }
            return receiveLocked(dst, true);
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public int send(ByteBuffer src, SocketAddress target) throws IOException {
        Objects.requireNonNull(src, "src");
        writeLock.lock();
        try {
            ensureOpen();
            InetSocketAddress isa = NioErrors.inet4(target);
            InetSocketAddress connectedTo = remoteAddress;
            if (connectedTo != null && !connectedTo.equals(isa)
                    && !(isa.getAddress().isAnyLocalAddress() && connectedTo.getPort() == isa.getPort())) {
                throw new IllegalArgumentException("Connected address not equal to target address");
            }
            implicitBind();
            return sendLocked(src, connectedTo != null ? null : isa);
        } finally {
            writeLock.unlock();
        }
    }

    private int sendLocked(ByteBuffer src, InetSocketAddress to) throws IOException {
        try {
            return socket.send(src, to); // UDP sends never wait: nothing to interrupt
        } catch (ErrnoException e) {
            throw translate(e);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
        readLock.lock();
        try {
            ensureOpen();
            if (remoteAddress == null) throw new NotYetConnectedException();
            boolean blocking = isBlocking();
            int n = -1;
            boolean got = false;
            try {
                if (blocking) begin();
                n = socket.read(dst);
                got = n >= 0;
            } catch (ErrnoException e) {
                if (isOpen()) throw translate(e);
            } catch (InterruptedIOException e) {
                // interrupted: endBlocking throws
            } finally {
                endBlocking(blocking, got);
            }
            return got ? n : 0; // non-blocking and nothing queued: 0, as the JDK
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        // one datagram spread over the buffers: receive into one buffer sized to their room, then scatter
        long room = 0;
        for (int i = offset; i < offset + length; i++) room += dsts[i].remaining();
        ByteBuffer tmp = ByteBuffer.allocate((int) Math.min(room, 65_535));
        int n = read(tmp);
        tmp.flip();
        for (int i = offset; i < offset + length && tmp.hasRemaining(); i++) {
            ByteBuffer d = dsts[i];
            int k = Math.min(d.remaining(), tmp.remaining());
            d.put(d.position(), tmp, tmp.position(), k);
            d.position(d.position() + k);
            tmp.position(tmp.position() + k);
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        writeLock.lock();
        try {
            ensureOpen();
            if (remoteAddress == null) throw new NotYetConnectedException();
            return sendLocked(src, null);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        long total = 0;
        for (int i = offset; i < offset + length; i++) total += srcs[i].remaining();
        ByteBuffer one = ByteBuffer.allocate((int) Math.min(total, Integer.MAX_VALUE - 8));
        for (int i = offset; i < offset + length; i++) one.put(srcs[i].duplicate());
        one.flip();
        int n = write(one); // one datagram, as writev(2) on a datagram socket
        for (int i = offset; i < offset + length; i++) srcs[i].position(srcs[i].limit());
        return n;
    }

    @Override
    public DatagramSocket socket() {
        synchronized (stateLock) {
            if (adaptor == null) adaptor = JnetDatagramSocketAdaptor.create(this);
            return adaptor;
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return localAddress;
    }

    InetSocketAddress localAddress() { return localAddress; }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return remoteAddress;
    }

    InetSocketAddress remoteAddress() { return remoteAddress; }

    @Override
    public <T> DatagramChannel setOption(java.net.SocketOption<T> name, T value) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            try {
                NioOptions.set(OPTIONS, name, value, socket::setOption);
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
                return (T) NioOptions.get(OPTIONS, name, socket::getOption);
            } catch (ErrnoException e) {
                throw NioErrors.io(e);
            }
        }
    }

    @Override
    public Set<java.net.SocketOption<?>> supportedOptions() { return OPTIONS; }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf) {
        throw new UnsupportedOperationException("jnet has no multicast (IGMP) yet");
    }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf, InetAddress source) {
        throw new UnsupportedOperationException("jnet has no multicast (IGMP) yet");
    }

    @Override
    public PollableSocket pollable() { return socket; }

    @Override
    public int pollInterest(int ops) {
        int ev = 0;
        if ((ops & SelectionKey.OP_READ) != 0) ev |= Events.POLLIN;
        if ((ops & SelectionKey.OP_WRITE) != 0) ev |= Events.POLLOUT;
        return ev;
    }

    @Override
    public int readyOps(int events, int interestOps) {
        if ((events & (Events.POLLERR | Events.POLLHUP)) != 0) return interestOps;
        int ops = 0;
        if ((events & Events.POLLIN) != 0) ops |= interestOps & SelectionKey.OP_READ;
        if ((events & Events.POLLOUT) != 0) ops |= interestOps & SelectionKey.OP_WRITE;
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
        socket.close();
    }

    @Override
    public String toString() {
        return getClass().getSuperclass().getName() + "[" + (!isOpen() ? "closed"
                : (remoteAddress != null ? "connected " : "") + (localAddress == null ? "unbound" : "local=" + localAddress)
                + (remoteAddress != null ? " remote=" + remoteAddress : "")) + "]";
    }
}
