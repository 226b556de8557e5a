package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A veth pair delivers the frames of one connection in the order they were sent, whichever threads send them
 * (Linux's veth feeds one receive queue per device in transmit order). Two-way traffic, large requests one way
 * and small answers the other, sends data both from the writing thread and from the thread that processes the
 * peer's ACKs; on a lossless link nothing may arrive out of order and nothing may be retransmitted.
 */
class TcpVethOrderTest {
    private static final int REQUEST = 100_000;
    private static final int ANSWER = 256;
    private static final int REQUESTS = 3200;
    private static final int WRITERS = 16;

    @Test
    void requestsAndAnswersOnALosslessVethAreNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace a = NetNamespace.create("order-a"); NetNamespace b = NetNamespace.create("order-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            try (TcpServerSocket srv = TcpServerSocket.open(b)) {
                srv.bind(new InetSocketAddress("10.0.0.2", 5001));
                srv.listen(4);
                CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                    try {
                        return srv.accept();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                try (TcpSocket c = TcpSocket.open(a)) {
                    c.connect(new InetSocketAddress("10.0.0.2", 5001));
                    try (TcpSocket s = accepted.get(30, TimeUnit.SECONDS)) {
                        // the server answers each request as it completes, from its reading thread
                        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> answer(s, pool), pool);
                        CompletableFuture<Void> answers = CompletableFuture.runAsync(() -> drain(c, (long) REQUESTS * ANSWER), pool);
                        CompletableFuture<?>[] writers = new CompletableFuture<?>[WRITERS];
                        for (int w = 0; w < WRITERS; w++) writers[w] = CompletableFuture.runAsync(() -> request(c), pool);
                        CompletableFuture.allOf(writers).get(120, TimeUnit.SECONDS);
                        answers.get(120, TimeUnit.SECONDS);
                        server.get(10, TimeUnit.SECONDS);
                    }
                }
            }
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                assertThat(ns.mib().get(MibCounter.TcpExtPAWSEstab)).as(ns.name() + " TcpExtPAWSEstab").isZero();
                assertThat(ns.mib().get(MibCounter.TcpExtTCPOFOQueue)).as(ns.name() + " TcpExtTCPOFOQueue").isZero();
                assertThat(ns.mib().get(MibCounter.TcpExtTCPDSACKOldSent)).as(ns.name() + " TcpExtTCPDSACKOldSent").isZero();
                assertThat(ns.mib().get(MibCounter.TcpRetransSegs)).as(ns.name() + " TcpRetransSegs").isZero();
            }
        }
    }

    /** {@link #REQUESTS} / {@link #WRITERS} requests of {@link #REQUEST} bytes on {@code c}. */
    private static void request(TcpSocket c) {
        byte[] req = new byte[REQUEST];
        try {
            for (int i = 0; i < REQUESTS / WRITERS; i++) c.write(req, 0, req.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads requests of {@link #REQUEST} bytes from {@code s} and has each answered with {@link #ANSWER} bytes by a
     * thread of {@code pool}, several answers being written at once while requests keep coming.
     */
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

    /** Reads {@code total} bytes from {@code s}. */
    private static void drain(TcpSocket s, long total) {
        byte[] in = new byte[4096];
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
}
