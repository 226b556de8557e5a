package io.jnet.perf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake stack for tests: connections are pairs of bounded in-memory byte pipes, a listener is a queue of
 * pending connections; UDP sockets are bounded datagram queues that drop what does not fit, as a full
 * receive queue does. Optionally fails: {@code failAfterBytes} makes server-side reads throw once that many
 * bytes went through the server end, {@code unavailable} makes listen and UDP bind throw
 * UnsupportedOperationException, {@link #dropEvery} silently drops every n-th datagram sent on the path.
 */
final class InMemoryPath implements PerfPath {

    private static final int PIPE_BYTES = 64 * 1024;
    /** Datagrams a fake UDP socket queues before it drops. */
    static final int DATAGRAM_QUEUE = 64;
    private static final AtomicInteger PORTS = new AtomicInteger(40000);

    private final String stack;
    private final long failAfterBytes;
    private final boolean unavailable;
    final AtomicInteger connections = new AtomicInteger();
    /** Datagrams sent on this path so far (delivered or dropped). */
    final AtomicLong datagrams = new AtomicLong();
    /** When positive, every datagram whose number on the path is a multiple of it is dropped on the way. */
    volatile long dropEvery;
    private final Map<InetSocketAddress, Udp> udpSockets = new ConcurrentHashMap<>();
    volatile boolean closed;

    InMemoryPath(String stack) {
        this(stack, Long.MAX_VALUE, false);
    }

    InMemoryPath(String stack, long failAfterBytes, boolean unavailable) {
        this.stack = stack;
        this.failAfterBytes = failAfterBytes;
        this.unavailable = unavailable;
    }

    @Override
    public String stack() { return stack; }

    @Override
    public String description() { return "in-memory pipes"; }

    @Override
    public PerfListener listen(SocketSettings server) {
        if (unavailable) throw new UnsupportedOperationException("TCP not yet built");
        return new Listener(new InetSocketAddress("127.0.0.1", PORTS.incrementAndGet()));
    }

    @Override
    public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
        Pipe up = new Pipe();
        Pipe down = new Pipe();
        Conn clientEnd = new Conn(down, up, Long.MAX_VALUE);
        Conn serverEnd = new Conn(up, down, failAfterBytes);
        ((Listener) listener).offer(serverEnd);
        connections.incrementAndGet();
        return clientEnd;
    }

    @Override
    public PerfDatagramSocket bindDatagram(SocketSettings server) {
        if (unavailable) throw new UnsupportedOperationException("UDP not yet built");
        return udp();
    }

    @Override
    public PerfDatagramSocket connectDatagram(InetSocketAddress server, SocketSettings client) throws IOException {
        if (!udpSockets.containsKey(server)) throw new IOException("ECONNREFUSED");
        Udp u = udp();
        u.peer = server;
        return u;
    }

    private Udp udp() {
        Udp u = new Udp(new InetSocketAddress("127.0.0.1", PORTS.incrementAndGet()));
        udpSockets.put(u.address, u);
        return u;
    }

    @Override
    public void close() { closed = true; }

    /** A fake UDP socket: a bounded queue of datagrams; what arrives when it is full is dropped. */
    private final class Udp implements PerfDatagramSocket {
        private record Datagram(byte[] data, InetSocketAddress from) {}

        private static final Datagram CLOSED = new Datagram(new byte[0], null);
        final InetSocketAddress address;
        final ArrayBlockingQueue<Datagram> queue = new ArrayBlockingQueue<>(DATAGRAM_QUEUE);
        volatile InetSocketAddress peer;
        private volatile boolean closed;

        Udp(InetSocketAddress address) { this.address = address; }

        @Override
        public InetSocketAddress localAddress() { return address; }

        @Override
        public int send(ByteBuffer src) throws IOException {
            if (peer == null) throw new IOException("EDESTADDRREQ");
            return sendTo(src, peer);
        }

        @Override
        public int sendTo(ByteBuffer src, InetSocketAddress to) throws IOException {
            if (closed) throw new IOException("EBADF");
            if (src.remaining() > TestSpec.MAX_DATAGRAM) throw new IOException("EMSGSIZE");
            byte[] data = new byte[src.remaining()];
            src.get(data);
            Udp dst = udpSockets.get(to);
            long n = datagrams.incrementAndGet();
            boolean lost = dropEvery > 0 && n % dropEvery == 0;
            if (!lost && dst != null && !dst.closed) {
                dst.queue.offer(new Datagram(data, address));
            }
            return data.length;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            int start = dst.position();
            receive(dst);
            return dst.position() - start;
        }

        @Override
        public InetSocketAddress receive(ByteBuffer dst) throws IOException {
            Datagram d;
            try {
                d = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (d == CLOSED) {
                queue.offer(CLOSED);
                throw new IOException("EBADF: socket closed");
            }
            dst.put(d.data(), 0, Math.min(d.data().length, dst.remaining()));
            return d.from();
        }

        @Override
        public int sendBufferSize() { return PIPE_BYTES; }

        @Override
        public int receiveBufferSize() { return PIPE_BYTES; }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            udpSockets.remove(address);
            queue.clear();
            queue.offer(CLOSED);
        }
    }

    private static final class Listener implements PerfListener {
        private static final Conn CLOSED = new Conn(null, null, 0);
        private final LinkedBlockingQueue<Conn> pending = new LinkedBlockingQueue<>();
        private final InetSocketAddress address;
        private volatile boolean closed;

        Listener(InetSocketAddress address) { this.address = address; }

        void offer(Conn c) throws IOException {
            if (closed) throw new IOException("ECONNREFUSED");
            pending.add(c);
        }

        @Override
        public PerfConnection accept() throws IOException {
            try {
                Conn c = pending.take();
                if (c == CLOSED) {
                    pending.add(CLOSED);
                    throw new IOException("listener closed");
                }
                return c;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        @Override
        public InetSocketAddress address() { return address; }

        @Override
        public void close() {
            closed = true;
            pending.add(CLOSED);
        }
    }

    /** One direction: a bounded byte queue with end-of-stream and reset. */
    private static final class Pipe {
        private final byte[] ring = new byte[PIPE_BYTES];
        private int head;
        private int count;
        private boolean eof;
        private boolean reset;

        synchronized int write(ByteBuffer src) throws IOException {
            while (count == ring.length && !reset && !eof) waitQuietly();
            if (reset || eof) throw new IOException("EPIPE");
            int n = Math.min(src.remaining(), ring.length - count);
            for (int i = 0; i < n; i++) ring[(head + count + i) % ring.length] = src.get();
            count += n;
            notifyAll();
            return n;
        }

        synchronized int read(ByteBuffer dst) throws IOException {
            while (count == 0 && !eof && !reset) waitQuietly();
            if (reset) throw new IOException("ECONNRESET");
            if (count == 0) return -1;
            int n = Math.min(dst.remaining(), count);
            for (int i = 0; i < n; i++) dst.put(ring[(head + i) % ring.length]);
            head = (head + n) % ring.length;
            count -= n;
            notifyAll();
            return n;
        }

        synchronized void finish() {
            eof = true;
            notifyAll();
        }

        synchronized void reset() {
            reset = true;
            notifyAll();
        }

        private void waitQuietly() throws IOException {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    private static final class Conn implements PerfConnection {
        private final Pipe in;
        private final Pipe out;
        private final long failAfterBytes;
        private long moved;

        Conn(Pipe in, Pipe out, long failAfterBytes) {
            this.in = in;
            this.out = out;
            this.failAfterBytes = failAfterBytes;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (moved >= failAfterBytes) throw new IOException("injected failure");
            int n = in.read(dst);
            if (n > 0) moved += n;
            return n;
        }

        @Override
        public int write(ByteBuffer src) throws IOException { return out.write(src); }

        @Override
        public long transferFrom(FileChannel file, long position, long count) throws IOException {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(count, PIPE_BYTES));
            int n = file.read(buf, position);
            if (n <= 0) return 0;
            buf.flip();
            int written = 0;
            while (buf.hasRemaining()) written += out.write(buf);
            return written;
        }

        @Override
        public void shutdownOutput() { out.finish(); }

        @Override
        public int sendBufferSize() { return PIPE_BYTES; }

        @Override
        public int receiveBufferSize() { return PIPE_BYTES; }

        @Override
        public void close() {
            out.finish();
            in.reset();
        }
    }
}
