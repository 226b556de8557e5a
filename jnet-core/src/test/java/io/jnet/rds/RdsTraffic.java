package io.jnet.rds;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Numbered, hashed RDS messages and a per-(sender, receiver) checker, for the fault tests: senders write the
 * messages 1, 2, 3, ... of each stream (one stream per pair of sockets), receivers check every message against
 * what its stream must carry next, and the test reads the per-stream accounts.
 *
 * <p>Message {@code k} of a stream has a size and content that depend only on the stream (its two addresses),
 * the seed and {@code k}: {@link Sizes} chooses the size, the content is random bytes from that seed. A message
 * of {@link #HEADER} bytes or more starts with a header (big-endian): magic, sender port, receiver port,
 * sequence number {@code k} (8 bytes), length, and the CRC-32C of the bytes after the header, so the receiver
 * reads which message it got; a shorter one (sizes 1..31) is identified by comparing it with the message the
 * stream must carry next. A receiver reports per stream: messages accepted in order, lost (a sequence number
 * skipped), duplicated (one already received), reordered (an earlier one received late), corrupted (bad hash,
 * wrong length, wrong ports, truncated).
 *
 * <p>Echo mode ({@link #startReceiver(RdsSocket, boolean)} with {@code echo}): the receiver gets its own
 * messages back from a peer that returns each one unchanged; they are checked against the stream they were
 * sent on (receiver's address to the echoing peer's), and gaps are allowed and recorded rather than counted
 * lost (see {@link StreamAccount#gaps()}), since a peer that dies loses what it had not returned yet. A message
 * without a header cannot be placed after a gap, so echo mode wants sizes of at least {@link #HEADER} bytes
 * ({@link #atLeast}); one that is not the next message counts as corrupted.
 *
 * <p>Threads: one per {@link #startSender sender} and per {@link #startReceiver receiver}; their exceptions are
 * collected in {@link #failures()}. {@link #close()} stops them and waits for them.
 */
public final class RdsTraffic implements AutoCloseable {
    /** Bytes of the header a message of at least this size starts with. */
    public static final int HEADER = 32;
    static final int MAGIC = 0x52445354; // "RDST"

    /** The size in bytes of message {@code seq} of the stream whose seed is {@code streamSeed}; 1 to 1 MiB. */
    @FunctionalInterface
    public interface Sizes {
        int size(long streamSeed, long seq);
    }

    /** Every message {@code n} bytes. */
    public static Sizes fixed(int n) {
        return (s, k) -> n;
    }

    /**
     * Mixed sizes from 1 byte to {@code max}: 2% of 1..31 bytes (no header), 60% up to 1 KiB, 30% up to 16 KiB,
     * 6% up to 128 KiB, 2% up to {@code max}, and always exactly {@code max} for every 500th message.
     */
    public static Sizes mixed(int max) {
        return (s, k) -> {
            if (k % 500 == 0) return max;
            SplittableRandom r = new SplittableRandom(s * 0x9E3779B97F4A7C15L + k);
            int p = r.nextInt(100);
            int n;
            if (p < 2) n = 1 + r.nextInt(HEADER - 1);
            else if (p < 62) n = HEADER + r.nextInt(1024 - HEADER + 1);
            else if (p < 92) n = 1024 + r.nextInt(15 * 1024 + 1);
            else if (p < 98) n = 16 * 1024 + r.nextInt(112 * 1024 + 1);
            else n = 128 * 1024 + r.nextInt(Math.max(1, max - 128 * 1024 + 1));
            return Math.min(n, max);
        };
    }

    /** {@code sizes}, but never below {@code min} bytes. */
    public static Sizes atLeast(int min, Sizes sizes) {
        return (s, k) -> Math.max(min, sizes.size(s, k));
    }

    /** One direction between two sockets. */
    public record Stream(InetSocketAddress from, InetSocketAddress to) {
        @Override
        public String toString() { return addr(from) + "->" + addr(to); }
    }

    /**
     * What a stream's receiver saw, a snapshot.
     *
     * @param sent messages the sender's send() returned for
     * @param accepted messages received in order and intact
     * @param lost sequence numbers skipped (strict mode)
     * @param duplicated messages received again
     * @param reordered messages received after a later one (strict mode: ones counted lost that arrived late)
     * @param corrupted messages with a bad hash, length, ports or magic, or truncated
     * @param lastSeq highest sequence number accepted
     * @param gaps echo mode: the ranges of sequence numbers skipped, as [first, last] pairs
     * @param errors the first problems, described
     */
    public record StreamAccount(Stream stream, long sent, long accepted, long lost, long duplicated, long reordered,
                                long corrupted, long lastSeq, List<long[]> gaps, List<String> errors) {
        public boolean clean() { return lost == 0 && duplicated == 0 && reordered == 0 && corrupted == 0; }

        @Override
        public String toString() {
            StringBuilder g = new StringBuilder();
            for (long[] r : gaps) g.append(g.isEmpty() ? "" : ",").append(r[0]).append("..").append(r[1]);
            return stream + ": sent " + sent + " accepted " + accepted + " last " + lastSeq + " lost " + lost
                    + " dup " + duplicated + " reordered " + reordered + " corrupted " + corrupted
                    + (gaps.isEmpty() ? "" : " gaps " + g) + (errors.isEmpty() ? "" : " " + errors);
        }
    }

    private final long seed;
    private final Sizes sizes;
    private final Map<Stream, State> streams = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong bytesReceived = new AtomicLong();
    private volatile boolean stopSending;
    private volatile boolean closed;

    public RdsTraffic(long seed, Sizes sizes) {
        this.seed = seed;
        this.sizes = sizes;
    }

    /** The stream's seed: the traffic's seed and the two addresses. */
    long streamSeed(Stream s) {
        long h = seed;
        h = h * 31 + Ipv4.fromInet(s.from.getAddress());
        h = h * 31 + s.from.getPort();
        h = h * 31 + Ipv4.fromInet(s.to.getAddress());
        h = h * 31 + s.to.getPort();
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes message {@code seq} of {@code s} into {@code b} and returns its length. */
    int message(Stream s, long seq, byte[] b) {
        long ss = streamSeed(s);
        int n = sizes.size(ss, seq);
        if (n < 1 || n > RdsSocket.MAX_MESSAGE_SIZE) throw new IllegalStateException("message size " + n);
        SplittableRandom r = new SplittableRandom(mix(ss + seq));
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long v = r.nextLong();
            for (int j = 0; j < 8; j++) b[i + j] = (byte) (v >>> (8 * j));
        }
        if (i < n) {
            long v = r.nextLong();
            for (int j = 0; i + j < n; j++) b[i + j] = (byte) (v >>> (8 * j));
        }
        if (n >= HEADER) {
            ByteBuffer h = ByteBuffer.wrap(b, 0, HEADER);
            h.putInt(MAGIC).putShort((short) s.from.getPort()).putShort((short) s.to.getPort()).putLong(seq).putInt(n);
            CRC32C crc = new CRC32C();
            crc.update(b, HEADER, n - HEADER);
            h.putLong(crc.getValue() ^ ((long) n << 32));
            h.putInt(0);
        }
        return n;
    }

    private State state(Stream s) {
        return streams.computeIfAbsent(s, State::new);
    }

    /**
     * Starts a thread that sends messages 1..{@code perDestination} of each stream from {@code sock} to each of
     * {@code to}, one to each destination in turn, until done or {@link #stopSending()}. Sends are blocking
     * (SO_SNDTIMEO expiry, ETIMEDOUT, is retried). The thread's failure goes to {@link #failures()}.
     */
    public Thread startSender(RdsSocket sock, List<InetSocketAddress> to, long perDestination) {
        InetSocketAddress from = sock.localAddress();
        List<Stream> ss = new ArrayList<>();
        for (InetSocketAddress d : to) ss.add(new Stream(from, d));
        for (Stream s : ss) state(s);
        return start("rds-send " + addr(from), () -> {
            byte[] b = new byte[RdsSocket.MAX_MESSAGE_SIZE];
            for (long k = 1; k <= perDestination && !stopSending && !closed; k++) {
                for (Stream s : ss) {
                    int n = message(s, k, b);
                    while (true) {
                        try {
                            sock.send(b, 0, n, s.to);
                            break;
                        } catch (ErrnoException e) {
                            if (e.errno() != Errno.EAGAIN && e.errno() != Errno.ETIMEDOUT && e.errno() != Errno.ENOBUFS) throw e;
                            if (closed) return;
                            if (e.errno() == Errno.ENOBUFS) Thread.sleep(1);
                        }
                    }
                    state(s).sent.incrementAndGet();
                }
            }
        });
    }

    /**
     * Sends, in the calling thread, the next {@code count} messages of the stream from {@code sock} to each of
     * {@code to} (numbering goes on from what this traffic sent on the stream before), one to each destination in
     * turn. Blocking sends; EAGAIN, ETIMEDOUT and ENOBUFS are retried. Not to be mixed with a sender thread on the same socket.
     */
    public void sendNext(RdsSocket sock, List<InetSocketAddress> to, int count, byte[] buf) throws IOException, InterruptedException {
        InetSocketAddress from = sock.localAddress();
        for (int i = 0; i < count; i++) {
            for (InetSocketAddress d : to) {
                Stream s = new Stream(from, d);
                State st = state(s);
                int n = message(s, st.sent.get() + 1, buf);
                while (true) {
                    try {
                        sock.send(buf, 0, n, d);
                        break;
                    } catch (ErrnoException e) {
                        if (e.errno() != Errno.EAGAIN && e.errno() != Errno.ETIMEDOUT && e.errno() != Errno.ENOBUFS) throw e;
                        if (e.errno() == Errno.ENOBUFS) Thread.sleep(1);
                    }
                }
                st.sent.incrementAndGet();
            }
        }
    }

    /** True when every stream's receiver has seen the last message sent on it (sender threads aside). */
    public boolean allArrivedNow() { return allArrived(); }

    /** Stops every sender after its current message. */
    public void stopSending() { stopSending = true; }

    /**
     * Starts a thread that receives on {@code sock} until {@link #close()} and checks each message. It sets
     * SO_RCVTIMEO to 50 ms to see the close.
     *
     * @param echo the messages are the socket's own, returned by the peer (see the class comment)
     */
    public Thread startReceiver(RdsSocket sock, boolean echo) throws IOException {
        sock.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
        InetSocketAddress local = sock.localAddress();
        return start("rds-recv " + addr(local), () -> {
            byte[] b = new byte[RdsSocket.MAX_MESSAGE_SIZE];
            byte[] want = new byte[RdsSocket.MAX_MESSAGE_SIZE];
            while (!closed) {
                RdsSocket.Received r;
                try {
                    r = sock.receive(b, 0, b.length);
                } catch (ErrnoException e) {
                    if (e.errno() == Errno.EAGAIN || e.errno() == Errno.ETIMEDOUT) continue;
                    if (closed && e.errno() == Errno.EBADF) return;
                    throw e;
                }
                if (r == null || r.isCongestionUpdate()) continue;
                bytesReceived.addAndGet(r.length());
                Stream s = echo ? new Stream(local, r.sender()) : new Stream(r.sender(), local);
                state(s).check(b, r, want, !echo);
            }
        });
    }

    private Thread start(String name, ThrowingRunnable body) {
        Thread t = Thread.ofPlatform().name(name).daemon().unstarted(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                if (!closed) failures.add(new AssertionError(Thread.currentThread().getName() + ": " + e, e));
            }
        });
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
        return t;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Exceptions of the sender and receiver threads. */
    public List<Throwable> failures() { return List.copyOf(failures); }

    /** Payload bytes received so far, over all streams. */
    public long bytesReceived() { return bytesReceived.get(); }

    /** Every stream's account, sorted by name. */
    public List<StreamAccount> accounts() {
        Map<String, StreamAccount> m = new TreeMap<>();
        for (State s : streams.values()) m.put(s.stream.toString(), s.account());
        return List.copyOf(m.values());
    }

    /** One stream's account (a stream nobody sent or received on reads all zero). */
    public StreamAccount account(Stream s) { return state(s).account(); }

    /** Messages sent, over all streams. */
    public long sent() {
        long n = 0;
        for (State s : streams.values()) n += s.sent.get();
        return n;
    }

    /** Messages accepted, over all streams. */
    public long accepted() {
        long n = 0;
        for (State s : streams.values()) n += s.accepted();
        return n;
    }

    /**
     * Waits until every sender thread has ended and every stream's receiver has seen the last message sent,
     * or {@code timeout} passes, or a thread failed.
     *
     * @return true when everything arrived
     */
    public boolean awaitDelivered(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!failures.isEmpty()) return false;
            if (sendersDone() && allArrived()) return true;
            Thread.sleep(5);
        }
        return false;
    }

    /** Waits up to {@code timeout} for the sender threads to end; true when they have. */
    public boolean awaitSenders(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!sendersDone()) {
            if (System.nanoTime() > deadline || !failures.isEmpty()) return false;
            Thread.sleep(5);
        }
        return true;
    }

    private boolean sendersDone() {
        synchronized (threads) {
            for (Thread t : threads) if (t.getName().startsWith("rds-send") && t.isAlive()) return false;
        }
        return true;
    }

    private boolean allArrived() {
        for (State s : streams.values()) if (s.lastSeq() < s.sent.get()) return false;
        return true;
    }

    /** A readable account of every stream, one per line. */
    public String report() {
        StringBuilder b = new StringBuilder();
        for (StreamAccount a : accounts()) b.append(a).append('\n');
        for (Throwable t : failures) b.append("failure: ").append(t).append('\n');
        return b.toString();
    }

    /** Stops the threads (a receiver sees it within its 50 ms timeout) and waits up to 5 s for them. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        stopSending = true;
        List<Thread> ts;
        synchronized (threads) {
            ts = List.copyOf(threads);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Thread t : ts) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    static String addr(InetSocketAddress a) {
        return a == null ? "null" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** One stream's checker; check() runs in the receiver thread of the stream's receiving socket only. */
    private final class State {
        final Stream stream;
        final AtomicLong sent = new AtomicLong();
        final BitSet seen = new BitSet();
        final List<long[]> gaps = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        long next = 1;
        long accepted, lost, duplicated, reordered, corrupted;

        State(Stream stream) {
            this.stream = stream;
        }

        synchronized long lastSeq() { return next - 1; }

        synchronized long accepted() { return accepted; }

        synchronized StreamAccount account() {
            return new StreamAccount(stream, sent.get(), accepted, lost, duplicated, reordered, corrupted, next - 1,
                    gaps.stream().map(long[]::clone).toList(), List.copyOf(errors));
        }

        private void error(String what) {
            if (errors.size() < 10) errors.add(what);
        }

        synchronized void check(byte[] b, RdsSocket.Received r, byte[] want, boolean strict) {
            int n = r.length();
            if (r.truncated()) {
                corrupted++;
                error("truncated: " + r.fullLength() + " bytes, " + n + " taken");
                return;
            }
            long seq;
            if (n < HEADER) { // no header: it must be the next message, byte for byte
                int wn = message(stream, next, want);
                if (wn != n || !java.util.Arrays.equals(b, 0, n, want, 0, n)) {
                    corrupted++;
                    error("a " + n + "-byte message is not message " + next + " (" + wn + " bytes)");
                    return;
                }
                seq = next;
            } else {
                ByteBuffer h = ByteBuffer.wrap(b, 0, HEADER);
                int magic = h.getInt();
                int fromPort = h.getShort() & 0xFFFF;
                int toPort = h.getShort() & 0xFFFF;
                seq = h.getLong();
                int len = h.getInt();
                long hash = h.getLong();
                CRC32C crc = new CRC32C();
                crc.update(b, HEADER, n - HEADER);
                String bad = null;
                if (magic != MAGIC) bad = "bad magic";
                else if (fromPort != stream.from.getPort() || toPort != stream.to.getPort()) bad = "ports " + fromPort + "->" + toPort;
                else if (len != n) bad = "length " + n + ", header says " + len;
                else if (hash != (crc.getValue() ^ ((long) n << 32))) bad = "content hash";
                else if (seq < 1) bad = "sequence " + seq;
                else if (sizes.size(streamSeed(stream), seq) != n) bad = "size " + n + " is not message " + seq + "'s";
                if (bad != null) {
                    corrupted++;
                    error(bad + " (message " + seq + ")");
                    return;
                }
            }
            if (seq > Integer.MAX_VALUE) throw new IllegalStateException("sequence " + seq);
            if (seen.get((int) seq)) {
                duplicated++;
                error("duplicate " + seq + " (next " + next + ")");
                return;
            }
            seen.set((int) seq);
            if (seq < next) { // counted lost before, arrives late
                reordered++;
                if (strict) lost--;
                error("reordered " + seq + " after " + (next - 1));
                return;
            }
            if (seq > next) {
                if (strict) {
                    lost += seq - next;
                    error("lost " + next + ".." + (seq - 1));
                }
                gaps.add(new long[] {next, seq - 1});
            }
            next = seq + 1;
            accepted++;
        }
    }
}
