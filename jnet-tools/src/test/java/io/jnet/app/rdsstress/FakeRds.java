package io.jnet.app.rdsstress;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory stand-in for RDS sockets: a send copies the message straight into the receive queue of the socket
 * bound to the destination (dropped when none is), through a {@link Tamper} that tests use to lose, duplicate,
 * reorder or corrupt messages. Lets the rds-stress engine be tested apart from the RDS transport.
 */
final class FakeRds {
    /** What happens to a message on its way; returns the messages to deliver, in order. */
    interface Tamper {
        byte[][] apply(InetSocketAddress from, InetSocketAddress to, byte[] message);
    }

    private final Map<InetSocketAddress, Sock> bound = new ConcurrentHashMap<>();
    private final Tamper tamper;

    FakeRds(Tamper tamper) {
        this.tamper = tamper;
    }

    FakeRds() {
        this((from, to, m) -> new byte[][] {m});
    }

    RdsSocket open() {
        return new Sock();
    }

    private record Msg(byte[] data, InetSocketAddress from) {}

    private final class Sock implements RdsSocket {
        final LinkedBlockingQueue<Msg> queue = new LinkedBlockingQueue<>();
        volatile InetSocketAddress local;
        volatile InetSocketAddress peer;
        volatile boolean closed;
        volatile Duration rcvTimeout = Duration.ZERO;
        volatile boolean blocking = true;

        @Override
        public void bind(InetSocketAddress at) throws IOException {
            if (local != null || at.getAddress().isAnyLocalAddress()) throw new ErrnoException(Errno.EINVAL, "bind");
            if (bound.putIfAbsent(at, this) != null) throw new ErrnoException(Errno.EADDRINUSE, "bind");
            local = at;
        }

        @Override
        public void connect(InetSocketAddress remote) {
            peer = remote;
        }

        @Override
        public void send(byte[] b, int off, int len, InetSocketAddress to) throws IOException {
            if (closed) throw new ErrnoException(Errno.EBADF, "send");
            if (local == null) throw new ErrnoException(Errno.ENOTCONN, "send");
            InetSocketAddress dst = to != null ? to : peer;
            if (dst == null) throw new ErrnoException(Errno.ENOTCONN, "send");
            if (len > MAX_MESSAGE_SIZE) throw new ErrnoException(Errno.EMSGSIZE, "send");
            byte[] copy = Arrays.copyOfRange(b, off, off + len);
            for (byte[] m : tamper.apply(local, dst, copy)) {
                Sock s = bound.get(dst);
                if (s != null && !s.closed) s.queue.add(new Msg(m, local));
            }
        }

        @Override
        public void send(ByteBuffer src, InetSocketAddress to) throws IOException {
            byte[] b = new byte[src.remaining()];
            src.get(b);
            send(b, 0, b.length, to);
        }

        @Override
        public Received receive(byte[] b, int off, int len) throws IOException {
            if (closed) throw new ErrnoException(Errno.EBADF, "recvmsg");
            Msg m;
            try {
                if (!blocking) m = queue.poll();
                else if (rcvTimeout.isZero()) m = queue.take();
                else m = queue.poll(rcvTimeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ErrnoException(Errno.EINTR, "recvmsg");
            }
            if (m == null) {
                if (!blocking) return null;
                throw new ErrnoException(Errno.EAGAIN, "recvmsg");
            }
            int n = Math.min(len, m.data().length);
            System.arraycopy(m.data(), 0, b, off, n);
            return new Received(n, m.data().length, m.from(), 0);
        }

        @Override
        public Received receive(ByteBuffer dst) throws IOException {
            byte[] b = new byte[dst.remaining()];
            Received r = receive(b, 0, b.length);
            if (r != null) dst.put(b, 0, r.length());
            return r;
        }

        @Override
        public <T> void setOption(SocketOption<T> option, T value) {
            if (option == SocketOption.SO_RCVTIMEO) rcvTimeout = (Duration) value;
        }

        @Override
        public <T> T getOption(SocketOption<T> option) {
            return null;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public void setBlocking(boolean blocking) {
            this.blocking = blocking;
        }

        @Override
        public boolean isBlocking() {
            return blocking;
        }

        @Override
        public int readyEvents() {
            return 0;
        }

        @Override
        public void addReadinessListener(ReadinessListener listener) {}

        @Override
        public void removeReadinessListener(ReadinessListener listener) {}

        @Override
        public void close() {
            closed = true;
            if (local != null) bound.remove(local, this);
        }

        @Override
        public boolean isClosed() {
            return closed;
        }
    }
}
