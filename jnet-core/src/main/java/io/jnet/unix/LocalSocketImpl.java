package io.jnet.unix;

import io.jnet.buffer.SendFileWindow;
import io.jnet.buffer.PayloadRegion;
import io.jnet.buffer.StreamPipe;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.stack.SockLock;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One local stream socket: Linux's {@code unix_sock} for SOCK_STREAM ({@code net/unix/af_unix.c}) over two
 * {@link StreamPipe}s, {@link #in} from the peer and {@link #out} to it.
 *
 * <p>Locking: every call owns the socket through its own {@link SockLock} (so this socket's readers are one
 * pipe consumer and its writers one producer at a time) and waits on it with the ownership given up. A writer
 * and the peer's reader share no lock: the writer copies into the pipe and publishes; it takes the reader's
 * lock only to wake it, and only when the reader announced that it waits ({@link StreamPipe#consumerWaits},
 * set before the reader re-checks and sleeps; the writer checks it after publishing). Room works the same way
 * backwards ({@link StreamPipe#producerWaits}), a waiting writer being woken once the unread bytes are down to a
 * quarter of its SO_SNDBUF (Linux's {@code unix_write_space}). A wake-up that comes between the re-check and the
 * sleep is kept by the lock ({@link SockLock#await} returns at once). State changes (shutdown, close) always
 * wake the peer. Readiness listeners hear of data, room, shutdown and close.
 *
 * <p>The pipe sides are detached once, in {@link #release}, with the socket owned: any call that begins later,
 * or wakes up later, finds the socket closed before it touches a pipe.
 */
final class LocalSocketImpl implements LocalSocket {
    /** sk_shutdown bits, as Linux's RCV_SHUTDOWN, SEND_SHUTDOWN and SHUTDOWN_MASK. */
    static final int RCV_SHUTDOWN = 1, SEND_SHUTDOWN = 2, SHUTDOWN_MASK = 3;
    private static final VarHandle SHUTDOWN;

    static {
        try {
            SHUTDOWN = MethodHandles.lookup().findVarHandle(LocalSocketImpl.class, "shutdown", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final UnixProtocol unix;
    final SockLock lock;
    final LocalOptions opts;
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();

    /** From the peer; this socket consumes. Set once before {@link #peer}, which publishes it. */
    private StreamPipe in;
    /** To the peer; this socket produces. Set once before {@link #peer}. */
    private StreamPipe out;
    /** The other end (Linux's unix_peer), null until connected; kept after the peer closed. */
    private volatile LocalSocketImpl peer;

    /** The name (Linux's u->addr): bound, or the listener's for an accepted socket; null when unnamed. */
    private volatile String name;
    /** The name this socket created by bind, to let go of at close; null when it bound none. */
    private UnixProtocol.Binding binding;
    /** sk_shutdown: {@link #RCV_SHUTDOWN} and {@link #SEND_SHUTDOWN} bits, set by this socket and by its peer. */
    private volatile int shutdown;
    /** sk_err: the error the next read reports once its data is read (ECONNRESET), or null. */
    private volatile Errno soError;
    private volatile boolean closed;
    /** Queued at a listener and not accepted yet: its release resets the peer (unix_release_sock's embrion). */
    volatile boolean embryo;
    private volatile boolean blocking = true;
    /** The file mapping kept between sendfile calls (guarded by the socket lock), or null. */
    private SendFileWindow fileWindow;
    private InputStream inputStream;
    private OutputStream outputStream;

    LocalSocketImpl(UnixProtocol unix) {
        this.unix = unix;
        this.lock = new SockLock(unix.ns.clock()); // timed waits on the namespace's clock
        this.opts = new LocalOptions(unix.sysctl);
        lock.setWakeListener(this::notifyReadiness);
        unix.add(this);
    }

    /** Connects {@code a} and {@code b} back to back (unix_socketpair; the end of unix_stream_connect). */
    static void join(LocalSocketImpl a, LocalSocketImpl b) {
        StreamPipe ab = new StreamPipe();
        StreamPipe ba = new StreamPipe();
        a.out = ab;
        b.in = ab;
        b.out = ba;
        a.in = ba;
        a.peer = b;
        b.peer = a;
    }

    // ======================================================================================== connection

    @Override
    public void bind(String path) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "bind");
            binding = unix.bind(path, this, name != null);
            name = path;
        } finally {
            lock.release();
        }
    }

    @Override
    public void connect(String path) throws IOException {
        UnixProtocol.checkName(path, "connect");
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "connect");
            long deadline = 0;
            boolean timedOut = false;
            while (true) {
                // as unix_stream_connect: find the listener, then its state and queue, then our own state
                LocalListenerImpl l = unix.lookupListener(path);
                boolean mayWait = blocking && !timedOut;
                if (l.offer(this, mayWait)) return;
                if (!mayWait) {
                    throw new ErrnoException(Errno.EAGAIN, "connect: the queue of " + path + " is full"
                            + (blocking ? " (SO_SNDTIMEO)" : ""));
                }
                if (deadline == 0 && opts.sndTimeoNs > 0) deadline = now() + opts.sndTimeoNs;
                try {
                    // woken by an accept, a larger backlog, the listener's close, or our own close
                    if (!waitEvent(deadline, 0)) timedOut = true; // one more look, as Linux's restart after the timeout
                } finally {
                    l.forgetWaiter(lock);
                }
                if (closed) throw new ErrnoException(Errno.EBADF, "connect");
            }
        } finally {
            lock.release();
        }
    }

    /**
     * Under the listener's lock, for a connect from this socket that the listener takes: checks this socket's
     * state and makes the server's end (Linux's newsk), joined to this one.
     *
     * @throws ErrnoException EISCONN when this socket is connected already
     */
    LocalSocketImpl newServerEnd(String listenerName) throws ErrnoException {
        if (peer != null) throw new ErrnoException(Errno.EISCONN, "connect");
        LocalSocketImpl s = new LocalSocketImpl(unix);
        s.embryo = true;
        s.name = listenerName; // Linux copies the listener's address to the new socket
        join(this, s);
        return s;
    }

    // ======================================================================================== data

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        lock.lock();
        try {
            return readLocked(b, off, len, null);
        } finally {
            lock.release();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        lock.lock();
        try {
            return readLocked(null, 0, dst.remaining(), dst);
        } finally {
            lock.release();
        }
    }

    /** unix_stream_read_generic, with the socket owned: data first, then the pending error, then end of stream. */
    private int readLocked(byte[] b, int off, int len, ByteBuffer bb) throws IOException {
        if (closed) throw new ErrnoException(Errno.EBADF, "read");
        LocalSocketImpl p = peer;
        if (p == null) throw new ErrnoException(Errno.EINVAL, "read: not connected");
        if (len == 0) return 0;
        StreamPipe pipe = in;
        long deadline = 0;
        while (true) {
            if (closed) return -1; // closed by another thread while this read waited
            // the shutdown bits before the data: the peer writes its last bytes, then its error, then the bits
            int sh = shutdown;
            int n = bb == null ? pipe.read(b, off, len) : pipe.read(bb, len);
            if (n > 0) {
                consumed(pipe, p);
                return n;
            }
            Errno err = soError;
            if (err != null) {
                soError = null;
                throw new ErrnoException(err, "read");
            }
            if ((sh & RCV_SHUTDOWN) != 0) return -1;
            if (!blocking) return 0;
            pipe.consumerWaits();
            if (pipe.available() > 0 || soError != null || (shutdown & RCV_SHUTDOWN) != 0) continue;
            if (deadline == 0 && opts.rcvTimeoNs > 0) deadline = now() + opts.rcvTimeoNs;
            if (!waitEvent(deadline, opts.busyPollUs * 1000L)) {
                throw new ErrnoException(Errno.EAGAIN, "read timed out (SO_RCVTIMEO)");
            }
        }
    }

    /**
     * After a read freed room in {@code pipe}: wakes its writer if it waits and at most a quarter of its SO_SNDBUF
     * is unread now (unix_write_space), or tells its readiness listeners that it is writable.
     */
    private static void consumed(StreamPipe pipe, LocalSocketImpl writer) {
        int limit = writer.opts.sndbuf;
        if (pipe.takeProducerWaiting(limit, limit - (limit >> 2))) writer.lock.wakeUp();
        else if (writer.hasListeners() && pipe.used() <= (limit >> 2)) writer.notifyReadiness();
    }

    @Override
    public int write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        lock.lock();
        try {
            return writeLocked(b, off, len, null, null, 0);
        } finally {
            lock.release();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        lock.lock();
        try {
            return writeLocked(null, 0, src.remaining(), src, null, 0);
        } finally {
            lock.release();
        }
    }

    /**
     * unix_stream_sendmsg, with the socket owned: {@code len} bytes from {@code b} at {@code off}, or from
     * {@code bb} at its position (which advances), or from {@code region} at {@code regionOff}.
     */
    private int writeLocked(byte[] b, int off, int len, ByteBuffer bb, PayloadRegion region, long regionOff)
            throws IOException {
        if (closed) throw new ErrnoException(Errno.EBADF, "write");
        LocalSocketImpl p = peer;
        if (p == null) throw new ErrnoException(Errno.ENOTCONN, "write");
        StreamPipe pipe = out;
        long deadline = 0;
        int done = 0;
        while (true) {
            if (broken(p)) {
                if (done > 0) return done;
                throw new ErrnoException(Errno.EPIPE, "write");
            }
            if (done == len) return done;
            int limit = opts.sndbuf;
            int n = region != null ? pipe.write(region, regionOff + done, len - done, limit)
                    : bb != null ? pipe.write(bb, len - done, limit)
                    : pipe.write(b, off + done, len - done, limit);
            if (n > 0) {
                done += n;
                produced(pipe, p);
                if (done == len) return done;
            }
            if (!blocking) return done;
            pipe.producerWaits();
            if (pipe.used() < opts.sndbuf || broken(p)) continue;
            if (deadline == 0 && opts.sndTimeoNs > 0) deadline = now() + opts.sndTimeoNs;
            if (!waitEvent(deadline, 0)) {
                if (done > 0) return done;
                throw new ErrnoException(Errno.EAGAIN, "write timed out (SO_SNDTIMEO)");
            }
        }
    }

    /** No more writes: this socket closed or shut its output, or the peer closed or shut its input down. */
    private boolean broken(LocalSocketImpl p) {
        return closed || (shutdown & SEND_SHUTDOWN) != 0 || p.closed || (p.shutdown & RCV_SHUTDOWN) != 0;
    }

    /** After a write published bytes: wakes the reader if it waits (sk_data_ready), else tells its listeners. */
    private static void produced(StreamPipe pipe, LocalSocketImpl reader) {
        if (pipe.takeConsumerWaiting()) reader.lock.wakeUp();
        else if (reader.hasListeners()) reader.notifyReadiness();
    }

    @Override
    public long transferFrom(FileChannel src, long position, long count) throws IOException {
        Objects.requireNonNull(src, "src");
        if (position < 0 || count < 0) {
            throw new ErrnoException(Errno.EINVAL, "sendfile: negative " + (position < 0 ? "offset" : "count"));
        }
        if (count == 0) return 0;
        if (!src.isOpen()) throw new ErrnoException(Errno.EBADF, "sendfile: file closed");
        lock.lock();
        // the call owns the window while it runs: a concurrent sendfile (while this one waits for room with the
        // lock given up) maps its own, and close() cannot unmap bytes being copied
        SendFileWindow window = fileWindow;
        fileWindow = null;
        if (window == null) window = new SendFileWindow(unix::countSendfileFault);
        long done = 0;
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "sendfile");
            long todo = count;
            long size = -1;
            if (window.held(src, position) < count) {
                size = fileSize(src);
                if (position >= size) return 0;
                todo = Math.min(count, size - position);
            }
            while (done < todo) {
                int chunk = window.select(src, position + done, todo - done, size);
                int n = writeLocked(null, 0, chunk, null, window.region(), window.offset(position + done));
                done += n;
                if (n < chunk) break; // non-blocking and full, SO_SNDTIMEO, or an error after some bytes
            }
            if (done == 0 && !blocking) throw new ErrnoException(Errno.EAGAIN, "sendfile");
            return done;
        } catch (IOException e) {
            if (done > 0) return done; // as Linux: the bytes written are reported, the error comes next call
            throw e;
        } finally {
            if (fileWindow == null && !closed) fileWindow = window;
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

    // ======================================================================================== shutdown, close

    @Override
    public void shutdownOutput() throws IOException {
        shutdown(SEND_SHUTDOWN);
    }

    @Override
    public void shutdownInput() throws IOException {
        shutdown(RCV_SHUTDOWN);
    }

    /** unix_shutdown: this socket's bits, and the mirror bits on the peer (our SEND is its RCV). */
    private void shutdown(int how) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "shutdown");
            orShutdown(how);
            LocalSocketImpl p = peer;
            if (p != null) {
                int peerHow = ((how & RCV_SHUTDOWN) != 0 ? SEND_SHUTDOWN : 0) | ((how & SEND_SHUTDOWN) != 0 ? RCV_SHUTDOWN : 0);
                p.orShutdown(peerHow);
                p.lock.wakeUp();
            }
            lock.wakeUp(); // our own threads blocked in read or write, and our listeners (sk_state_change)
        } finally {
            lock.release();
        }
    }

    private void orShutdown(int bits) {
        SHUTDOWN.getAndBitwiseOr(this, bits);
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) release(embryo);
        } finally {
            lock.release();
        }
    }

    /** A listener closes with this connection still queued (unix_release_sock(skb->sk, 1)). */
    void closeUnaccepted() {
        lock.lock();
        try {
            if (!closed) release(true);
        } finally {
            lock.release();
        }
    }

    /**
     * unix_release_sock, with the socket owned: the peer gets both shutdown bits and, when this socket leaves
     * bytes it never read or was never accepted, ECONNRESET; the unread bytes are dropped; the pipe sides
     * detach; the name stays.
     */
    private void release(boolean embrion) {
        LocalSocketImpl p = peer;
        StreamPipe pin = in;
        StreamPipe pout = out;
        if (p != null) {
            // the error before the shutdown bits: a reader that sees the bits sees the error too
            if (pin.available() > 0 || embrion) p.soError = Errno.ECONNRESET;
            p.orShutdown(SHUTDOWN_MASK);
        }
        closed = true;
        embryo = false;
        orShutdown(SHUTDOWN_MASK);
        UnixProtocol.released(binding, this);
        if (fileWindow != null) {
            fileWindow.release();
            fileWindow = null;
        }
        if (p != null) {
            pin.skip(pin.available()); // as Linux frees the receive queue: the peer's SIOCOUTQ falls to 0
            pin.detachConsumer();
            pout.detachProducer();
            p.lock.wakeUp(); // its blocked readers and writers, its listeners
        }
        unix.remove(this);
        lock.wakeUp(); // threads of ours blocked in a call
    }

    @Override
    public boolean isClosed() { return closed; }

    // ======================================================================================== options, state

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "setsockopt");
            if (opts.set(option, value)) lock.wakeUp(); // a new SO_SNDBUF may let a waiting writer go on
        } finally {
            lock.release();
        }
    }

    @Override
    public <T> T getOption(SocketOption<T> option) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "getsockopt");
            return opts.get(option);
        } finally {
            lock.release();
        }
    }

    @Override
    public String localAddress() { return name; }

    @Override
    public String remoteAddress() {
        LocalSocketImpl p = peer;
        return p == null || closed ? null : p.name;
    }

    @Override
    public boolean isConnected() { return peer != null && !closed; }

    @Override
    public String state() { return isConnected() ? "ESTAB" : "UNCONN"; }

    @Override
    public int available() {
        LocalSocketImpl p = peer;
        return p == null || closed ? 0 : in.available();
    }

    @Override
    public int inq() throws IOException {
        if (closed) throw new ErrnoException(Errno.EBADF, "SIOCINQ");
        return available();
    }

    @Override
    public int outq() throws IOException {
        if (closed) throw new ErrnoException(Errno.EBADF, "SIOCOUTQ");
        LocalSocketImpl p = peer;
        return p == null ? 0 : outq(p);
    }

    /** Bytes written and not yet read by {@code p}; 0 once it closed (its queue is gone, as on Linux). */
    private int outq(LocalSocketImpl p) {
        return p.closed ? 0 : out.available();
    }

    @Override
    public void setBlocking(boolean blocking) { this.blocking = blocking; }

    @Override
    public boolean isBlocking() { return blocking; }

    /** unix_poll for SOCK_STREAM. */
    @Override
    public int readyEvents() {
        int ev = 0;
        int sh = shutdown;
        LocalSocketImpl p = peer;
        if (soError != null) ev |= Events.POLLERR;
        if (sh == SHUTDOWN_MASK) ev |= Events.POLLHUP;
        if ((sh & RCV_SHUTDOWN) != 0) ev |= Events.POLLRDHUP | Events.POLLIN;
        if (p == null || closed) return ev | Events.POLLHUP | Events.POLLOUT; // TCP_CLOSE, nothing queued
        if (in.available() > 0) ev |= Events.POLLIN;
        if ((long) outq(p) << 2 <= opts.sndbuf) ev |= Events.POLLOUT; // unix_writable
        return ev;
    }

    @Override
    public void addReadinessListener(ReadinessListener l) { listeners.add(l); }

    @Override
    public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    private boolean hasListeners() { return !listeners.isEmpty(); }

    void notifyReadiness() {
        if (listeners.isEmpty()) return;
        for (ReadinessListener l : listeners) {
            try {
                l.readinessChanged(this);
            } catch (RuntimeException e) {
                unix.ns.reportInternalError(e);
            }
        }
    }

    @Override
    public synchronized InputStream inputStream() {
        if (inputStream == null) inputStream = io.jnet.socket.SocketStreams.input(this);
        return inputStream;
    }

    @Override
    public synchronized OutputStream outputStream() {
        if (outputStream == null) outputStream = io.jnet.socket.SocketStreams.output(this);
        return outputStream;
    }

    // ======================================================================================== helpers

    private long now() { return unix.ns.clock().nanoTime(); }

    /** Waits with the socket lock given up; false when the deadline (0: none) has passed. */
    private boolean waitEvent(long deadline, long spinNanos) throws IOException {
        long timeout = 0;
        if (deadline != 0) {
            timeout = deadline - now();
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

    @Override
    public String toString() {
        LocalSocketImpl p = peer;
        return "LocalSocket[" + state() + " " + (name == null ? "*" : name) + " -> "
                + (p == null ? "-" : p.name == null ? "*" : p.name) + "]";
    }
}
