package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Loopback delivers the segments of one connection in the order they were sent, whichever threads send them:
 * the writing threads send data while the thread that processes the peer's ACKs sends what those ACKs let out
 * (from receive context, so it waits until that thread's current frame is done). On lossless loopback nothing
 * may arrive out of order and nothing may be retransmitted. Without the ordered receive queue 3 of 5 runs caught
 * an overtaking (TcpExtTCPOFOQueue 5, TcpExtTCPDSACKRecv 1, TcpRetransSegs 1; or TcpExtPAWSEstab 2, an ACK
 * overtaken); LoopbackOrderTest shows the same every time.
 */
class TcpLoopbackOrderTest {
    private static final int CHUNK = 65536;
    private static final int CHUNKS = 4096;
    private static final int WRITERS = 4;

    private static final int REQUEST = 100_000;
    private static final int ANSWER = 256;
    private static final int REQUESTS = 3200;
    private static final int REQUEST_WRITERS = 16;

    /** Large requests one way and small answers the other, each side writing from several threads. */
    @Test
    void requestsAndAnswersOverLoopbackAreNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace ns = NetNamespace.create("lo-order2")) {
            try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
                srv.bind(new InetSocketAddress("127.0.0.1", 5001));
                srv.listen(4);
                CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return srv.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, pool);
                try (TcpSocket c = TcpSocket.open(ns)) {
                    c.connect(new InetSocketAddress("127.0.0.1", 5001));
                    try (TcpSocket s = accepted.get(30, TimeUnit.SECONDS)) {
                        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> answer(s, pool), pool);
                        CompletableFuture<Void> answers = CompletableFuture.runAsync(() -> drain(c, (long) REQUESTS * ANSWER), pool);
                        CompletableFuture<?>[] writers = new CompletableFuture<?>[REQUEST_WRITERS];
                        for (int w = 0; w < REQUEST_WRITERS; w++) writers[w] = CompletableFuture.runAsync(() -> request(c), pool);
                        CompletableFuture.allOf(writers).get(120, TimeUnit.SECONDS);
                        answers.get(120, TimeUnit.SECONDS);
                        server.get(10, TimeUnit.SECONDS);
                    }
                }
            }
            assertInOrder(ns);
        }
    }

    /** {@link #WRITERS} threads write {@link #CHUNKS} chunks of {@link #CHUNK} bytes; one reads them. */
    @Test
    void aBulkTransferOverLoopbackIsNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace ns = NetNamespace.create("lo-order")) {
            try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
                srv.bind(new InetSocketAddress("127.0.0.1", 5001));
                srv.listen(4);
                CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return srv.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, pool);
                try (TcpSocket c = TcpSocket.open(ns)) {
                    c.connect(new InetSocketAddress("127.0.0.1", 5001));
                    try (TcpSocket s = accepted.get(30, TimeUnit.SECONDS)) {
                        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> drain(s, (long) CHUNKS * CHUNK), pool);
                        CompletableFuture<?>[] writers = new CompletableFuture<?>[WRITERS];
                        for (int w = 0; w < WRITERS; w++) writers[w] = CompletableFuture.runAsync(() -> write(c), pool);
                        CompletableFuture.allOf(writers).get(120, TimeUnit.SECONDS);
                        reader.get(120, TimeUnit.SECONDS);
                    }
                }
            }
            assertInOrder(ns);
        }
    }

    /** Nothing arrived out of order (data or ACKs) and nothing was retransmitted, spuriously or not. */
    private static void assertInOrder(NetNamespace ns) {
        assertThat(ns.mib().get(MibCounter.TcpExtPAWSEstab)).as("TcpExtPAWSEstab").isZero();
        assertThat(ns.mib().get(MibCounter.TcpExtTCPOFOQueue)).as("TcpExtTCPOFOQueue").isZero();
        assertThat(ns.mib().get(MibCounter.TcpExtTCPSACKReorder)).as("TcpExtTCPSACKReorder").isZero();
        assertThat(ns.mib().get(MibCounter.TcpExtTCPDSACKRecv)).as("TcpExtTCPDSACKRecv").isZero();
        assertThat(ns.mib().get(MibCounter.TcpRetransSegs)).as("TcpRetransSegs").isZero();
    }

    /** {@link #CHUNKS} / {@link #WRITERS} writes of {@link #CHUNK} bytes on {@code c}. */
    private static void write(TcpSocket c) {
        byte[] b = new byte[CHUNK];
        try {
            for (int i = 0; i < CHUNKS / WRITERS; i++) c.write(b, 0, b.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@code total} bytes from {@code s}. */
    private static void drain(TcpSocket s, long total) {
        byte[] in = new byte[CHUNK];
        try {
            for (long got = 0; got < total; ) {
                int n = s.read(in, 0, in.length);
                if (n < 0) throw new IOException("EOF after " + got + " bytes");
                got += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #REQUESTS} / {@link #REQUEST_WRITERS} requests of {@link #REQUEST} bytes on {@code c}. */
    private static void request(TcpSocket c) {
        byte[] req = new byte[REQUEST];
        try {
            for (int i = 0; i < REQUESTS / REQUEST_WRITERS; i++) c.write(req, 0, req.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads requests of {@link #REQUEST} bytes from {@code s}; a thread of {@code pool} answers each with {@link #ANSWER} bytes. */
    private static void answer(TcpSocket s, ExecutorService pool) {
        byte[] in = new byte[65536];
        try {
            long got = 0;
            long answered = 0;
            CompletableFuture<?>[] sent = new CompletableFuture<?>[REQUESTS];
            while (answered < REQUESTS) {
                int n = s.read(in, 0, in.length);
                if (n < 0) throw new IOException("EOF after " + got + " bytes");
                got += n;
                for (; answered < got / REQUEST; answered++) {
                    sent[(int) answered] = CompletableFuture.runAsync(() -> {
                        try {
                            s.write(new byte[ANSWER], 0, ANSWER);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }, pool);
                }
            }
            CompletableFuture.allOf(sent).join();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
