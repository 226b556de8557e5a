package io.jnet.unix;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import io.jnet.stack.SockLock;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A listening local stream socket: Linux's unix_listen, unix_accept and the listener's side of
 * unix_stream_connect. Its queue (Linux's listener receive queue of embryo sockets) holds the server ends of
 * connections not yet accepted.
 *
 * <p>Locking: calls own the listener through its {@link SockLock}; the queue and the list of connects waiting
 * for room are guarded by the queue's monitor, which connecting threads take without owning the listener. A
 * connect that finds the queue full registers its own socket's lock here and sleeps on it; an accept, a larger
 * backlog or the close wakes every registered one, and each looks again (Linux's peer_wait).
 */
final class LocalListenerImpl implements LocalServerSocket {
    final UnixProtocol unix;
    final SockLock lock;
    final LocalOptions opts;
    private final CopyOnWriteArrayList<ReadinessListener> listeners = new CopyOnWriteArrayList<>();
    /** Server ends of connections waiting for accept, oldest first (guarded by itself). */
    private final ArrayDeque<LocalSocketImpl> queue = new ArrayDeque<>();
    /** Locks of connecting sockets waiting for room in {@link #queue} (guarded by {@link #queue}). */
    private final List<SockLock> connectWaiters = new ArrayList<>();
    /** {@link #queue}'s size, for readiness without the monitor. */
    private volatile int queued;
    /** sk_max_ack_backlog: the queue is full with more than this many waiting. */
    private int backlog;
    private volatile boolean listening;
    private volatile boolean closed;
    private volatile boolean blocking = true;
    private volatile String name;
    private UnixProtocol.Binding binding;

    LocalListenerImpl(UnixProtocol unix) {
        this.unix = unix;
        this.lock = new SockLock(unix.ns.clock()); // timed waits on the namespace's clock
        this.opts = new LocalOptions(unix.sysctl);
        lock.setWakeListener(this::notifyReadiness);
        unix.add(this);
    }

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
    public void listen(int backlog) throws IOException {
        List<SockLock> waiters = List.of();
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "listen");
            if (name == null) throw new ErrnoException(Errno.EINVAL, "listen: the socket has no name");
            int max = unix.sysctl.somaxconn.intValue();
            // __sys_listen compares the backlog unsigned: a negative one is above somaxconn
            int b = backlog < 0 || backlog > max ? max : backlog;
            synchronized (queue) {
                if (b > this.backlog) waiters = takeWaiters(); // room for connects waiting already
                this.backlog = b;
                listening = true;
            }
        } finally {
            lock.release();
        }
        wake(waiters);
    }

    @Override
    public LocalSocket accept() throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "accept");
            if (!listening) throw new ErrnoException(Errno.EINVAL, "accept: not listening");
            long deadline = 0;
            while (true) {
                if (closed) throw new ErrnoException(Errno.EBADF, "accept");
                LocalSocketImpl s;
                List<SockLock> waiters = List.of();
                synchronized (queue) {
                    s = queue.poll();
                    queued = queue.size();
                    if (s != null) waiters = takeWaiters();
                }
                if (s != null) {
                    s.embryo = false;
                    wake(waiters);
                    notifyReadiness();
                    return s;
                }
                if (!blocking) return null;
                if (deadline == 0 && opts.rcvTimeoNs > 0) deadline = unix.ns.clock().nanoTime() + opts.rcvTimeoNs;
                long timeout = 0;
                if (deadline != 0) {
                    timeout = deadline - unix.ns.clock().nanoTime();
                    if (timeout <= 0) throw new ErrnoException(Errno.EAGAIN, "accept timed out (SO_RCVTIMEO)");
                }
                try {
                    lock.await(timeout);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("accept interrupted");
                }
            }
        } finally {
            lock.release();
        }
    }

    /**
     * unix_stream_connect's part under the listener's lock: queues the server end of a connection from
     * {@code client}, or finds the queue full.
     *
     * @param registerWaiter when the queue is full, register {@code client}'s lock to be woken when that may
     *                       have changed
     * @return true when connected, false when the queue is full
     * @throws ErrnoException ECONNREFUSED when not listening (not yet, or closed); EISCONN from the client
     */
    boolean offer(LocalSocketImpl client, boolean registerWaiter) throws ErrnoException {
        synchronized (queue) {
            if (closed || !listening) throw new ErrnoException(Errno.ECONNREFUSED, "connect " + name);
            if (queue.size() > backlog) { // unix_recvq_full
                if (registerWaiter && !connectWaiters.contains(client.lock)) connectWaiters.add(client.lock);
                return false;
            }
            queue.add(client.newServerEnd(name));
            queued = queue.size();
        }
        lock.wakeUp(); // sk_data_ready: an accept waiting, and pollers (POLLIN)
        return true;
    }

    /** A connect that waited for room gives up its registration. */
    void forgetWaiter(SockLock waiter) {
        synchronized (queue) {
            connectWaiters.remove(waiter);
        }
    }

    /** Takes the registered connect waiters (with the queue's monitor held). */
    private List<SockLock> takeWaiters() {
        if (connectWaiters.isEmpty()) return List.of();
        List<SockLock> l = List.copyOf(connectWaiters);
        connectWaiters.clear();
        return l;
    }

    private static void wake(List<SockLock> waiters) {
        for (SockLock w : waiters) w.wakeUp();
    }

    @Override
    public void close() {
        LocalSocketImpl[] pending;
        List<SockLock> waiters;
        lock.lock();
        try {
            if (closed) return;
            synchronized (queue) {
                closed = true;
                listening = false;
                pending = queue.toArray(new LocalSocketImpl[0]);
                queue.clear();
                queued = 0;
                waiters = takeWaiters();
            }
            UnixProtocol.released(binding, this);
            unix.remove(this);
            lock.wakeUp(); // accepts blocked in other threads
        } finally {
            lock.release();
        }
        // the queued connections go with the listener: their clients get ECONNRESET (unix_release_sock)
        for (LocalSocketImpl s : pending) s.closeUnaccepted();
        wake(waiters); // they look again and find the name refusing
    }

    @Override
    public boolean isClosed() { return closed; }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        lock.lock();
        try {
            if (closed) throw new ErrnoException(Errno.EBADF, "setsockopt");
            opts.set(option, value);
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
    public int queued() { return queued; }

    @Override
    public void setBlocking(boolean blocking) { this.blocking = blocking; }

    @Override
    public boolean isBlocking() { return blocking; }

    /** unix_poll: POLLIN with a connection queued; not listening yet, an unconnected socket's POLLOUT|POLLHUP. */
    @Override
    public int readyEvents() {
        if (closed || !listening) return Events.POLLOUT | Events.POLLHUP;
        return queued > 0 ? Events.POLLIN : 0;
    }

    @Override
    public void addReadinessListener(ReadinessListener l) { listeners.add(l); }

    @Override
    public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }

    private void notifyReadiness() {
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
    public String toString() {
        return "LocalServerSocket[" + (listening ? "LISTEN " : "UNCONN ") + (name == null ? "*" : name) + ", " + queued + " queued]";
    }
}
