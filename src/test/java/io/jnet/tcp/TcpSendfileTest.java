package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link TcpSocket#transferFrom}: sendfile(2) from a mapping of the file into the send queue. */
@Timeout(60)
class TcpSendfileTest {

    @TempDir
    Path dir;

    private NetNamespace ns;
    private TcpServerSocket server;
    private TcpSocket client;
    private TcpSocket peer;

    @BeforeEach
    void connect() throws Exception {
        ns = NetNamespace.create("sendfile");
        server = TcpServerSocket.open(ns);
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        server.listen(4);
        client = TcpSocket.open(ns);
        client.connect(server.localAddress());
        peer = server.accept();
    }

    @AfterEach
    void close() {
        client.close();
        peer.close();
        server.close();
        assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        ns.close();
    }

    private Path file(byte[] content) throws IOException {
        Path p = Files.createTempFile(dir, "sendfile", ".bin");
        Files.write(p, content);
        return p;
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Reads exactly {@code n} bytes from the peer in another thread. */
    private CompletableFuture<byte[]> peerReads(int n) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                byte[] got = new byte[n];
                int off = 0;
                while (off < n) {
                    int r = peer.read(got, off, n - off);
                    if (r < 0) throw new IOException("end of stream after " + off + " of " + n + " bytes");
                    off += r;
                }
                return got;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void aWholeFileArrivesExactlyAndTheFilePositionStays() throws Exception {
        byte[] data = random((3 << 20) + 17, 1);
        CompletableFuture<byte[]> got = peerReads(data.length);
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            fc.position(123);
            assertThat(client.transferFrom(fc, 0, data.length)).isEqualTo(data.length);
            assertThat(fc.position()).isEqualTo(123);
        }
        assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(data);
    }

    @Test
    void positionAndCountAreHonouredAndClippedAtTheEndOfTheFile() throws Exception {
        byte[] data = random(100_000, 2);
        CompletableFuture<byte[]> got = peerReads(6000);
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            assertThat(client.transferFrom(fc, 1000, 5000)).isEqualTo(5000);
            assertThat(client.transferFrom(fc, 99_000, 5000)).as("clipped at the end of the file").isEqualTo(1000);
            assertThat(client.transferFrom(fc, 100_000, 10)).as("at the end of the file").isZero();
            assertThat(client.transferFrom(fc, 200_000, 10)).as("past the end of the file").isZero();
            assertThat(client.transferFrom(fc, 0, 0)).as("count 0").isZero();
        }
        byte[] expected = new byte[6000];
        System.arraycopy(data, 1000, expected, 0, 5000);
        System.arraycopy(data, 99_000, expected, 5000, 1000);
        assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
        client.shutdownOutput();
        assertThat(peer.read(new byte[1], 0, 1)).as("nothing more was sent").isEqualTo(-1);
    }

    @Test
    void aTransferAcrossManySmallWindowsRemapsAndArrivesExactly() throws Exception {
        byte[] data = random(300_001, 3);
        ((TcpConnection) client).sendFileWindow = new SendFileWindow(16384, 4096, () -> { });
        CompletableFuture<byte[]> got = peerReads(data.length - 5003);
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            assertThat(client.transferFrom(fc, 5003, data.length)).isEqualTo(data.length - 5003);
        }
        assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, 5003, data.length));
    }

    @Test
    void theFileStaysMappedBetweenCallsAndCloseUnmapsIt() throws Exception {
        Path maps = Path.of("/proc/self/maps");
        assumeThat(Files.isReadable(maps)).as("/proc/self/maps (Linux) shows the mappings").isTrue();
        byte[] data = random(1 << 20, 4);
        Path p = file(data);
        String name = p.toRealPath().toString();
        CompletableFuture<byte[]> got = peerReads(3 * data.length);
        try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ)) {
            for (int i = 0; i < 32; i++) {
                assertThat(client.transferFrom(fc, (long) (i % 16) * 65536, 65536)).isEqualTo(65536);
            }
            assertThat(mappingsOf(maps, name)).as("one mapping, kept for the next call").hasSize(1);
            assertThat(client.transferFrom(fc, 0, data.length)).isEqualTo(data.length);
            assertThat(mappingsOf(maps, name)).hasSize(1);
        }
        got.get(30, TimeUnit.SECONDS);
        assertThat(mappingsOf(maps, name)).as("the mapping outlives the file channel").hasSize(1);
        client.close();
        assertThat(mappingsOf(maps, name)).as("close unmaps at once").isEmpty();
    }

    private static List<String> mappingsOf(Path maps, String file) throws IOException {
        return Files.readAllLines(maps).stream().filter(l -> l.endsWith(" " + file)).toList();
    }

    @Test
    void badArgumentsAndBadFilesAreErrnoErrors() throws Exception {
        Path p = file(random(4096, 5));
        try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ)) {
            assertErrno(() -> client.transferFrom(fc, -1, 10), Errno.EINVAL);
            assertErrno(() -> client.transferFrom(fc, 0, -1), Errno.EINVAL);
        }
        FileChannel closed = FileChannel.open(p, StandardOpenOption.READ);
        closed.close();
        assertErrno(() -> client.transferFrom(closed, 0, 10), Errno.EBADF);
        try (FileChannel writeOnly = FileChannel.open(p, StandardOpenOption.WRITE)) {
            assertErrno(() -> client.transferFrom(writeOnly, 0, 10), Errno.EBADF);
        }
        assertThatThrownBy(() -> client.transferFrom(null, 0, 10)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void socketStatesGiveWritesErrors() throws Exception {
        Path p = file(random(4096, 6));
        try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ); TcpSocket unconnected = TcpSocket.open(ns)) {
            assertErrno(() -> unconnected.transferFrom(fc, 0, 10), Errno.ENOTCONN);
            client.shutdownOutput();
            assertErrno(() -> client.transferFrom(fc, 0, 10), Errno.EPIPE);
            client.close();
            assertErrno(() -> client.transferFrom(fc, 0, 10), Errno.EPIPE);
        }
    }

    @Test
    void nonBlockingQueuesWhatFitsThenSaysEagain() throws Exception {
        byte[] data = random(16 << 20, 7);
        client.setBlocking(false);
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            long sent = 0;
            ErrnoException full = null;
            while (full == null) {
                try {
                    long n = client.transferFrom(fc, sent, data.length - sent);
                    assertThat(n).as("a non-blocking call that queues nothing throws").isPositive();
                    sent += n;
                    assertThat(sent).as("the peer reads nothing: its window closes first").isLessThan(data.length);
                } catch (ErrnoException e) {
                    full = e;
                }
            }
            assertThat(full.errno()).isEqualTo(Errno.EAGAIN);
            client.setBlocking(true);
            CompletableFuture<byte[]> got = peerReads(data.length);
            assertThat(client.transferFrom(fc, sent, data.length - sent)).isEqualTo(data.length - sent);
            assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(data);
        }
    }

    @Test
    void aSendTimeoutBeforeAnyByteIsEagainAndAfterSomeIsAShortCount() throws Exception {
        byte[] data = random(16 << 20, 8);
        client.setOption(SocketOption.SO_SNDTIMEO, Duration.ofMillis(100));
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            long first = client.transferFrom(fc, 0, data.length);
            assertThat(first).as("what fitted before the timeout").isPositive().isLessThan(data.length);
            assertErrno(() -> client.transferFrom(fc, first, data.length - first), Errno.EAGAIN);
        }
    }

    @Test
    void aWarmTransferAllocatesNothingPerCall() throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
                .as("the JVM counts allocated bytes per thread").isTrue();
        int chunk = 16384;
        int slots = 16;
        byte[] data = random(chunk * slots, 9);
        peer.setOption(SocketOption.SO_RCVBUF, 1 << 20);
        Thread drain = Thread.ofPlatform().daemon(true).start(() -> {
            ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
            try {
                while (peer.read(sink.clear()) >= 0) {
                    // discard
                }
            } catch (IOException ignored) {
                // the socket closed under the reader
            }
        });
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            int calls = 20_000;
            for (int i = 0; i < calls; i++) client.transferFrom(fc, (long) (i % slots) * chunk, chunk); // warm up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) client.transferFrom(fc, (long) (i % slots) * chunk, chunk);
            long perCall = (threads.getCurrentThreadAllocatedBytes() - before) / calls;
            assertThat(perCall).as("bytes allocated per 16 KiB sendfile call, segments and acknowledgements included")
                    .isLessThan(8);
        } finally {
            client.close();
            drain.join(10_000);
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private static void assertErrno(Call call, Errno errno) {
        assertThatThrownBy(call::run).isInstanceOf(ErrnoException.class)
                .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(errno));
    }
}
