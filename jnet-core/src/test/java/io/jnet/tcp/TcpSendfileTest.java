package io.jnet.tcp;

import io.jnet.buffer.SendFileWindow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.jnet.buffer.PayloadRegion;
import io.jnet.link.VethPair;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.InetSocketAddress;
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

/**
 * {@link TcpSocket#transferFrom}: sendfile(2) from a mapping of the file, by reference from 16 KiB a call.
 * What a call costs (time, allocation) is measured in {@code LoopbackPathBenchmark.sendfile64k}.
 */
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
        return reads(peer, n);
    }

    /** Reads exactly {@code n} bytes from {@code peer} in another thread. */
    private static CompletableFuture<byte[]> reads(TcpSocket peer, int n) {
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
    void theFileStaysMappedBetweenCallsAndIsUnmappedAfterClose() throws Exception {
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
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!mappingsOf(maps, name).isEmpty() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(mappingsOf(maps, name)).as("unmapped once closed and no segment refers to it").isEmpty();
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
    void zeroCopyAndSmallCallsMixedArriveExactlyOverLoopback() throws Exception {
        mixedCallsArriveExactly(client, peer);
    }

    @Test
    void zeroCopyAndSmallCallsMixedArriveExactlyOverVeth() throws Exception {
        try (NetNamespace a = NetNamespace.create("sendfile-a"); NetNamespace b = NetNamespace.create("sendfile-b")) {
            TcpSocket[] pair = vethPair(a, b);
            try (TcpSocket c = pair[0]; TcpSocket s = pair[1]) {
                mixedCallsArriveExactly(c, s);
            }
            assertThat(a.internalErrors() + b.internalErrors()).isZero();
        }
    }

    /** Calls of 16 KiB and more (by reference) and smaller ones (copied), interleaved, from places all over the file. */
    private void mixedCallsArriveExactly(TcpSocket from, TcpSocket to) throws Exception {
        byte[] data = random(1 << 20, 10);
        int[][] calls = {{0, 65536}, {70_000, 100}, {65536, 16384}, {3, 1}, {81_920, 200_000}, {500_000, 16383},
                {516_383, 16385}, {1000, 5000}, {(1 << 20) - 40_000, 40_000}, {7, 16384}};
        int total = 0;
        for (int[] call : calls) total += call[1];
        CompletableFuture<byte[]> got = reads(to, total);
        byte[] expected = new byte[total];
        int at = 0;
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            for (int[] call : calls) {
                assertThat(from.transferFrom(fc, call[0], call[1])).isEqualTo(call[1]);
                System.arraycopy(data, call[0], expected, at, call[1]);
                at += call[1];
            }
        }
        assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
    }

    @Test
    void aLargeCallReachesThePeerByReferenceAndASmallOneAsACopy() throws Exception {
        byte[] data = random(1 << 20, 11);
        client.setOption(SocketOption.TCP_NODELAY, true); // the small call's segment leaves at once
        TcpConnection receiver = (TcpConnection) peer;
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            assertThat(client.transferFrom(fc, 4096, 65536)).isEqualTo(65536);
            PayloadRegion region = ((TcpConnection) client).sendFileWindow.region();
            assertThat(region).isNotNull();
            assertThat(receiver.receiveQueue.peek().payloadRegion()).as("the frame the peer queued refers to the mapping")
                    .isSameAs(region);
            assertThat(readExactly(peer, 65536)).isEqualTo(Arrays.copyOfRange(data, 4096, 4096 + 65536));
            assertThat(client.transferFrom(fc, 100, 1000)).isEqualTo(1000);
            assertThat(receiver.receiveQueue.peek().payloadRegion()).as("a small call is copied").isNull();
            assertThat(readExactly(peer, 1000)).isEqualTo(Arrays.copyOfRange(data, 100, 1100));
        }
    }

    private static byte[] readExactly(TcpSocket s, int n) throws IOException {
        byte[] got = new byte[n];
        int off = 0;
        while (off < n) {
            int r = s.read(got, off, n - off);
            if (r < 0) throw new IOException("end of stream after " + off + " of " + n + " bytes");
            off += r;
        }
        return got;
    }

    @Test
    void zeroCopySegmentsLostOnTheWayAreRetransmittedExactly() throws Exception {
        try (NetNamespace a = NetNamespace.create("sendfile-a"); NetNamespace b = NetNamespace.create("sendfile-b")) {
            TcpSocket[] pair = vethPair(a, b);
            // loss at the receiver's ingress: the sender's veth end takes frames by reference, and it is those
            // that are lost and sent again
            ImpairedDevice lossy = ImpairedDevice.interpose(b, "veth1", ImpairmentConfig.parse("ingress.loss=10%,seed=5"));
            byte[] data = random(4 << 20, 12);
            try (TcpSocket c = pair[0]; TcpSocket s = pair[1];
                 FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
                CompletableFuture<byte[]> got = reads(s, data.length);
                for (int at = 0; at < data.length; at += 65536) assertThat(c.transferFrom(fc, at, 65536)).isEqualTo(65536);
                assertThat(got.get(60, TimeUnit.SECONDS)).isEqualTo(data);
            }
            assertThat(lossy.counts(Direction.INGRESS).dropped()).as("frames lost").isPositive();
            assertThat(a.mib().get(MibCounter.TcpRetransSegs)).as("segments were sent again").isPositive();
            assertThat(a.internalErrors() + b.internalErrors()).isZero();
        }
    }

    @Test
    void theMappingIsFreedWhenTheSocketClosedAndTheLastBufferReferringToItIsReleased() throws Exception {
        byte[] data = random(1 << 20, 13);
        try (FileChannel fc = FileChannel.open(file(data), StandardOpenOption.READ)) {
            assertThat(client.transferFrom(fc, 0, 65536)).isEqualTo(65536);
            PayloadRegion region = ((TcpConnection) client).sendFileWindow.region();
            client.close();
            assertThat(region.isFreed()).as("the peer's receive queue still refers to it").isFalse();
            byte[] got = new byte[65536];
            int off = 0;
            while (off < got.length) off += peer.read(got, off, got.length - off);
            assertThat(got).isEqualTo(Arrays.copyOf(data, 65536));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!region.isFreed() && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(region.isFreed()).as("closed and every buffer released: the arena is closed").isTrue();
        }
    }

    @Test
    void aFileTruncatedWhileItsPagesAreQueuedGivesCountedZerosAndNoFailureAndAShortCountBeyondTheMapping() throws Exception {
        byte[] data = random(1 << 20, 14);
        Path p = file(data);
        peer.setOption(SocketOption.SO_RCVBUF, 4 << 20);
        client.setBlocking(false);
        long sent = 0;
        try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ)) {
            try {
                while (sent < data.length) sent += client.transferFrom(fc, sent, Math.min(65536, data.length - sent));
            } catch (ErrnoException e) {
                assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
            }
            assertThat(sent).as("queued by reference, not read yet").isGreaterThan(65536);
            try (FileChannel w = FileChannel.open(p, StandardOpenOption.WRITE)) {
                w.truncate(4096);
            }
            client.setBlocking(true);
            assertThat(client.transferFrom(fc, 8192, 1000)).as("within the mapping the size is not read again")
                    .isEqualTo(1000);
            ((TcpConnection) client).sendFileWindow.release();
            assertThat(client.transferFrom(fc, 8192, 65536)).as("past the end of the file as it is now").isZero();
            assertThat(client.transferFrom(fc, 0, 65536)).as("a short count: Linux's").isEqualTo(4096);
        }
        long faults = ns.mib().get(MibCounter.TcpExtJnetSendfileFaults);
        assertThat(faults).as("the small call read a lost page").isPositive();
        byte[] got = new byte[(int) sent + 1000 + 4096];
        int off = 0;
        while (off < got.length) {
            int n = peer.read(got, off, got.length - off);
            assertThat(n).as("the stream goes on").isPositive();
            off += n;
        }
        assertThat(Arrays.equals(got, 0, 4096, data, 0, 4096)).as("the page the file kept arrives as it was").isTrue();
        int zeros = 0;
        for (int i = 4096; i < sent; i++) {
            if (got[i] == 0 && data[i] != 0) zeros++;
            else assertThat(got[i]).as("byte %d: the file's or zero", i).isEqualTo(data[i]);
        }
        assertThat(zeros).as("bytes the file lost arrive as zeros").isPositive();
        assertThat(Arrays.equals(got, (int) sent, (int) sent + 1000, new byte[1000], 0, 1000))
                .as("the small call's bytes, lost").isTrue();
        assertThat(Arrays.equals(got, (int) sent + 1000, got.length, data, 0, 4096)).as("the short call's bytes").isTrue();
        assertThat(ns.mib().get(MibCounter.TcpExtJnetSendfileFaults)).as("the reader's faults counted").isGreaterThan(faults);
    }

    /** A connected client in {@code a} and its accepted peer in {@code b}, over a veth pair. */
    private static TcpSocket[] vethPair(NetNamespace a, NetNamespace b) throws IOException {
        VethPair p = VethPair.create("veth0", "veth1");
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress("veth0", "10.0.0.1/24");
        b.addAddress("veth1", "10.0.0.2/24");
        try (TcpServerSocket srv = TcpServerSocket.open(b)) {
            srv.bind(new InetSocketAddress("10.0.0.2", 5001));
            srv.listen(4);
            TcpSocket c = TcpSocket.open(a);
            c.connect(new InetSocketAddress("10.0.0.2", 5001));
            return new TcpSocket[] {c, srv.accept()};
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
