package io.jnet.unix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Bytes through local stream sockets: integrity, flow control, pauses, close races, sendfile, streams. */
@Timeout(60)
class LocalSocketDataTest {
    private NetNamespace ns;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("unix-data");
    }

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        for (AutoCloseable c : closeables) c.close();
        assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        assertThat(ns.extension(UnixProtocol.class).socketCount()).as("sockets left open").isZero();
        ns.close();
    }

    private <T extends AutoCloseable> T track(T c) {
        closeables.add(c);
        return c;
    }

    /** A connection made through a listener: {client, server}. */
    private LocalSocket[] connection() throws IOException {
        LocalServerSocket l = track(LocalServerSocket.open(ns));
        l.bind("srv-" + closeables.size());
        l.listen(4);
        LocalSocket c = track(LocalSocket.open(ns));
        c.connect(l.localAddress());
        return new LocalSocket[] {c, track(l.accept())};
    }

    /** Writes {@code total} seeded random bytes in random-sized calls (byte[] and direct buffers); returns their CRC. */
    private static long writeRandom(LocalSocket s, long total, long seed) throws IOException {
        Random sizes = new Random(seed);
        Random data = new Random(seed * 31 + 7);
        CRC32 crc = new CRC32();
        byte[] buf = new byte[300_000];
        ByteBuffer direct = ByteBuffer.allocateDirect(300_000);
        long sent = 0;
        while (sent < total) {
            int n = (int) Math.min(total - sent, 1 + sizes.nextInt(sizes.nextBoolean() ? 200 : 250_000));
            int off = sizes.nextInt(buf.length - n + 1);
            fill(data, buf, off, n);
            crc.update(buf, off, n);
            if (sizes.nextBoolean()) {
                assertThat(s.write(buf, off, n)).isEqualTo(n);
            } else {
                direct.clear().put(buf, off, n).flip();
                assertThat(s.write(direct)).isEqualTo(n);
                assertThat(direct.hasRemaining()).isFalse();
            }
            sent += n;
        }
        return crc.getValue();
    }

    private static void fill(Random r, byte[] b, int off, int n) {
        for (int i = 0; i < n; i++) b[off + i] = (byte) r.nextInt();
    }

    /** Reads until end of stream in random-sized calls (byte[] and heap buffers with offsets); returns {bytes, CRC}. */
    private static long[] readAll(LocalSocket s, long seed) throws IOException {
        Random sizes = new Random(seed);
        CRC32 crc = new CRC32();
        byte[] buf = new byte[300_000];
        ByteBuffer heap = ByteBuffer.allocate(300_000);
        long got = 0;
        while (true) {
            int n = 1 + sizes.nextInt(sizes.nextBoolean() ? 100 : 280_000);
            int r;
            if (sizes.nextBoolean()) {
                int off = sizes.nextInt(buf.length - n + 1);
                r = s.read(buf, off, n);
                if (r > 0) crc.update(buf, off, r);
            } else {
                heap.clear().position(7).limit(7 + Math.min(n, heap.capacity() - 7));
                r = s.read(heap);
                if (r > 0) {
                    assertThat(heap.position()).isEqualTo(7 + r);
                    crc.update(heap.array(), 7, r);
                }
            }
            if (r < 0) return new long[] {got, crc.getValue()};
            assertThat(r).isPositive();
            got += r;
        }
    }

    @Test
    void manyMegabytesEachWayArriveIntactWithRandomWriteAndReadSizes() throws Exception {
        LocalSocket[] c = connection();
        long total = 24L << 20;
        c[0].setOption(SocketOption.SO_SNDBUF, 20_000); // a small buffer: many waits for room
        Future<Long> up = pool.submit(() -> {
            long crc = writeRandom(c[0], total, 1);
            c[0].shutdownOutput();
            return crc;
        });
        Future<Long> down = pool.submit(() -> {
            long crc = writeRandom(c[1], total / 2, 2);
            c[1].shutdownOutput();
            return crc;
        });
        Future<long[]> atServer = pool.submit(() -> readAll(c[1], 3));
        Future<long[]> atClient = pool.submit(() -> readAll(c[0], 4));
        assertThat(atServer.get(50, TimeUnit.SECONDS)).containsExactly(total, up.get(50, TimeUnit.SECONDS));
        assertThat(atClient.get(50, TimeUnit.SECONDS)).containsExactly(total / 2, down.get(50, TimeUnit.SECONDS));
    }

    @Test
    void aReaderThatStopsForASecondThenResumesGetsEverything() throws Exception {
        LocalSocket[] p = pairForTest();
        long total = 6L << 20;
        Future<Long> writer = pool.submit(() -> {
            long crc = writeRandom(p[0], total, 11);
            p[0].close();
            return crc;
        });
        byte[] first = new byte[1 << 20];
        int got = 0;
        while (got < first.length) got += p[1].read(first, got, first.length - got);
        Thread.sleep(1000);
        assertThat(writer.isDone()).as("the writer waits for the reader").isFalse();
        assertThat(p[0].outq()).isLessThanOrEqualTo(p[0].getOption(SocketOption.SO_SNDBUF));
        CRC32 crc = new CRC32();
        crc.update(first);
        byte[] rest = new byte[65536];
        long count = first.length;
        int r;
        while ((r = p[1].read(rest, 0, rest.length)) >= 0) {
            crc.update(rest, 0, r);
            count += r;
        }
        assertThat(count).isEqualTo(total);
        assertThat(crc.getValue()).isEqualTo(writer.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aWriterAgainstAReaderThatNeverReadsStaysWithinItsSendBuffer() throws Exception {
        LocalSocket[] p = connection();
        p[0].setOption(SocketOption.SO_SNDBUF, 8192);
        int limit = p[0].getOption(SocketOption.SO_SNDBUF);
        assertThat(limit).isEqualTo(16384);
        CompletableFuture<Thread> writerThread = new CompletableFuture<>();
        Future<Integer> writer = pool.submit(() -> {
            writerThread.complete(Thread.currentThread());
            return p[0].write(new byte[4 << 20], 0, 4 << 20);
        });
        Thread t = writerThread.get(5, TimeUnit.SECONDS);
        awaitWaiting(t);
        assertThat(p[0].outq()).isEqualTo(limit);
        assertThat(p[1].inq()).isEqualTo(limit);
        Thread.sleep(200);
        assertThat(p[0].outq()).as("no byte beyond SO_SNDBUF").isEqualTo(limit);
        assertThat(writer.isDone()).isFalse();

        // the writer sleeps until at most a quarter of SO_SNDBUF is unread (Linux's unix_writable)
        byte[] b = new byte[limit];
        readFully(p[1], b, limit / 2);
        Thread.sleep(200);
        assertThat(p[0].outq()).as("half read: the writer still sleeps").isEqualTo(limit / 2);
        readFully(p[1], b, limit / 4);
        long end = System.nanoTime() + 5_000_000_000L;
        while (p[0].outq() != limit && System.nanoTime() < end) Thread.sleep(1);
        assertThat(p[0].outq()).as("a quarter left: the writer filled the buffer again").isEqualTo(limit);

        // the reader goes away: the blocked write reports what it wrote, the next one EPIPE
        p[1].close();
        int written = writer.get(5, TimeUnit.SECONDS);
        assertThat(written).isEqualTo(limit + limit / 2 + limit / 4);
        assertThat(catchThrowableOfType(ErrnoException.class, () -> p[0].write(new byte[1], 0, 1)).errno())
                .isEqualTo(Errno.EPIPE);
    }

    private static void readFully(LocalSocket s, byte[] b, int n) throws IOException {
        int got = 0;
        while (got < n) got += s.read(b, got, n - got);
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("thread never blocked").isLessThan(end);
            Thread.sleep(1);
        }
    }

    @Test
    void closesFromSeveralThreadsWhileDataIsQueuedEndEveryCallCleanly() throws Exception {
        List<Errno> allowed = List.of(Errno.EPIPE, Errno.ECONNRESET, Errno.EBADF);
        for (int round = 0; round < 300; round++) {
            LocalSocket[] c = round % 2 == 0 ? connection() : pairForTest();
            if (round % 3 == 0) c[0].setOption(SocketOption.SO_SNDBUF, 4096);
            int delayUs = ThreadLocalRandom.current().nextInt(2000);
            List<Future<?>> calls = new ArrayList<>();
            for (LocalSocket s : c) {
                calls.add(pool.submit(() -> {
                    byte[] b = new byte[70_000];
                    try {
                        while (s.write(b, 0, b.length) > 0) { } // until an error (a blocked write returns short first)
                    } catch (ErrnoException e) {
                        assertThat(e.errno()).isIn(allowed);
                    }
                    return null;
                }));
                calls.add(pool.submit(() -> {
                    byte[] b = new byte[50_000];
                    try {
                        while (s.read(b, 0, b.length) >= 0) { }
                    } catch (ErrnoException e) {
                        assertThat(e.errno()).isIn(allowed);
                    }
                    return null;
                }));
            }
            for (int k = 0; k < 3; k++) {
                LocalSocket victim = c[k % 2];
                calls.add(pool.submit(() -> {
                    java.util.concurrent.locks.LockSupport.parkNanos(delayUs * 1000L);
                    victim.close();
                    return null;
                }));
            }
            for (Future<?> f : calls) f.get(20, TimeUnit.SECONDS);
            assertThat(c[0].isClosed() && c[1].isClosed()).isTrue();
        }
        // the chunks went back to the pool intact: a new stream still carries its bytes exactly
        LocalSocket[] c = connection();
        Future<Long> w = pool.submit(() -> {
            long crc = writeRandom(c[0], 4L << 20, 5);
            c[0].close();
            return crc;
        });
        assertThat(readAll(c[1], 6)).containsExactly(4L << 20, w.get(20, TimeUnit.SECONDS));
    }

    @Test
    void connectsAcceptsAndAListenerCloseRaceWithoutLeaks() throws Exception {
        for (int round = 0; round < 50; round++) {
            LocalServerSocket l = LocalServerSocket.open(ns);
            l.bind("race");
            l.listen(2);
            List<Future<?>> calls = new ArrayList<>();
            List<LocalSocket> opened = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int k = 0; k < 3; k++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        LocalSocket s = LocalSocket.open(ns);
                        opened.add(s);
                        try {
                            s.connect("race");
                            s.write(new byte[100], 0, 100);
                        } catch (ErrnoException e) {
                            assertThat(e.errno()).isIn(Errno.ECONNREFUSED, Errno.EPIPE);
                        }
                    }
                    return null;
                }));
            }
            calls.add(pool.submit(() -> {
                try {
                    for (LocalSocket a; (a = l.accept()) != null; ) opened.add(a);
                } catch (ErrnoException e) {
                    assertThat(e.errno()).isEqualTo(Errno.EBADF);
                }
                return null;
            }));
            calls.add(pool.submit(() -> {
                java.util.concurrent.locks.LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(3000) * 1000L);
                l.close();
                return null;
            }));
            for (Future<?> f : calls) f.get(20, TimeUnit.SECONDS);
            synchronized (opened) {
                for (LocalSocket s : opened) s.close();
            }
            ns.unlink("race");
            assertThat(ns.extension(UnixProtocol.class).socketCount()).as("round %d", round).isZero();
        }
    }

    @Test
    void sendfileWritesTheFileFromItsMapping(@TempDir Path dir) throws Exception {
        byte[] content = new byte[3 * 1024 * 1024 + 777];
        new Random(9).nextBytes(content);
        Path file = dir.resolve("data.bin");
        Files.write(file, content);
        LocalSocket[] p = connection();
        try (FileChannel f = FileChannel.open(file, StandardOpenOption.READ)) {
            Future<Long> sender = pool.submit(() -> {
                Random r = new Random(3);
                long pos = 0;
                while (pos < content.length) {
                    long n = p[0].transferFrom(f, pos, 1 + r.nextInt(200_000));
                    assertThat(n).isPositive();
                    pos += n;
                }
                assertThat(p[0].transferFrom(f, pos, 100)).as("at the end of the file").isZero();
                assertThat(p[0].transferFrom(f, content.length - 10, 100)).as("a short count past the end").isEqualTo(10);
                p[0].shutdownOutput();
                return pos + 10;
            });
            byte[] got = new byte[content.length + 10];
            readFully(p[1], got, got.length);
            assertThat(p[1].read(new byte[1], 0, 1)).isEqualTo(-1);
            assertThat(sender.get(20, TimeUnit.SECONDS)).isEqualTo(got.length);
            assertThat(java.util.Arrays.copyOf(got, content.length)).isEqualTo(content);
            assertThat(java.util.Arrays.copyOfRange(got, content.length, got.length))
                    .isEqualTo(java.util.Arrays.copyOfRange(content, content.length - 10, content.length));
            assertThat(f.position()).as("the file's position is not used").isZero();

            assertThat(catchThrowableOfType(ErrnoException.class, () -> p[0].transferFrom(f, -1, 1)).errno())
                    .isEqualTo(Errno.EINVAL);
            LocalSocket[] q = connection();
            q[0].setBlocking(false);
            q[0].setOption(SocketOption.SO_SNDBUF, 4096);
            assertThat(q[0].transferFrom(f, 0, 1 << 20)).isEqualTo(8192);
            assertThat(catchThrowableOfType(ErrnoException.class, () -> q[0].transferFrom(f, 0, 1 << 20)).errno())
                    .isEqualTo(Errno.EAGAIN);
            byte[] first = new byte[8192];
            readFully(q[1], first, first.length);
            assertThat(first).isEqualTo(java.util.Arrays.copyOf(content, 8192));
        }
        try (FileChannel closed = FileChannel.open(file, StandardOpenOption.READ)) {
            closed.close();
            assertThat(catchThrowableOfType(ErrnoException.class, () -> p[1].transferFrom(closed, 0, 1)).errno())
                    .isEqualTo(Errno.EBADF);
        }
    }

    @Test
    void streamViewsReadAndWriteBlocking() throws Exception {
        LocalSocket[] p = connection();
        Future<?> w = pool.submit(() -> {
            try (DataOutputStream out = new DataOutputStream(p[0].outputStream())) {
                for (int i = 0; i < 100_000; i++) out.writeInt(i);
            }
            return null;
        });
        DataInputStream in = new DataInputStream(p[1].inputStream());
        for (int i = 0; i < 100_000; i++) assertThat(in.readInt()).isEqualTo(i);
        assertThat(in.read()).isEqualTo(-1);
        w.get(10, TimeUnit.SECONDS);
        assertThat(p[0].isClosed()).as("closing the stream closes the socket").isTrue();
    }

    private LocalSocket[] pairForTest() {
        LocalSocket.Pair p = LocalSocket.pair(ns);
        return new LocalSocket[] {track(p.first()), track(p.second())};
    }
}
