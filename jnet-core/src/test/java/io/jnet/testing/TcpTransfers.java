package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Checked TCP traffic between two namespaces (or within one), shared by the transport tests. All on port 5001. */
public final class TcpTransfers {
    /** The port every helper here listens on and connects to. */
    public static final int PORT = 5001;

    private TcpTransfers() {}

    /**
     * One established connection: the client's socket and the one the listener accepted. Closing closes the
     * accepted socket, then the client's, then the listener.
     */
    public record Connection(TcpSocket client, TcpSocket server, TcpServerSocket listener) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (listener; client; server) {
                // try-with-resources closes server, client, listener in that order
            }
        }
    }

    /** Listens in {@code server} on {@code addr}:{@value #PORT}, connects from {@code client}, accepts (30 s at most). */
    public static Connection connect(NetNamespace client, NetNamespace server, String addr) throws Exception {
        TcpServerSocket srv = TcpServerSocket.open(server);
        try {
            srv.bind(new InetSocketAddress(addr, PORT));
            srv.listen(4);
            CompletableFuture<TcpSocket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return srv.accept();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            TcpSocket c = TcpSocket.open(client);
            try {
                c.connect(new InetSocketAddress(addr, PORT));
                return new Connection(c, accepted.get(30, TimeUnit.SECONDS), srv);
            } catch (Exception | Error e) {
                c.close();
                throw e;
            }
        } catch (Exception | Error e) {
            srv.close();
            throw e;
        }
    }

    /** {@code size} random bytes client to server on port 5001 of {@code addr}, SHA-256 compared, "done" back. */
    public static void transfer(NetNamespace client, NetNamespace server, String addr, int size) throws Exception {
        byte[] data = random(size, 1);
        try (TcpServerSocket srv = TcpServerSocket.open(server)) {
            srv.bind(new InetSocketAddress(addr, PORT));
            srv.listen(16);
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try (TcpSocket s = srv.accept()) {
                    byte[] digest = readDigest(s, size);
                    s.write("done".getBytes(), 0, 4);
                    return digest;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (TcpSocket c = TcpSocket.open(client)) {
                c.connect(new InetSocketAddress(addr, PORT));
                for (int off = 0; off < size; off += 10000) c.write(data, off, Math.min(10000, size - off));
                c.shutdownOutput();
                byte[] buf = new byte[16];
                int n = c.read(buf, 0, 16);
                assertThat(new String(buf, 0, n)).isEqualTo("done");
                assertThat(c.read(buf, 0, 16)).isEqualTo(-1);
            }
            assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(sha256(data));
        }
    }

    /**
     * {@code up} client to server and {@code down} server to client at the same time, in writes of {@code writeSize}
     * bytes, each side shutting its output down after its last write; each side reads to the end of the stream and
     * the SHA-256 of what arrived must be that of what was sent. A transfer not done within {@code timeoutS} seconds
     * fails with {@code stalled}'s text.
     */
    public static void exchange(Connection conn, byte[] up, byte[] down, int writeSize, long timeoutS, Supplier<String> stalled)
            throws Exception {
        CompletableFuture<Void> cw = CompletableFuture.runAsync(() -> writeAndShutdown(conn.client(), up, writeSize));
        CompletableFuture<Void> sw = CompletableFuture.runAsync(() -> writeAndShutdown(conn.server(), down, writeSize));
        CompletableFuture<byte[]> sr = CompletableFuture.supplyAsync(() -> readDigest(conn.server(), up.length));
        CompletableFuture<byte[]> cr = CompletableFuture.supplyAsync(() -> readDigest(conn.client(), down.length));
        try {
            CompletableFuture.allOf(sr, cr).get(timeoutS, TimeUnit.SECONDS);
        } catch (TimeoutException t) {
            throw new AssertionError("transfer stalled after " + timeoutS + " s\n" + stalled.get(), t);
        }
        assertThat(sr.get()).as("client to server").isEqualTo(sha256(up));
        assertThat(cr.get()).as("server to client").isEqualTo(sha256(down));
        cw.get(10, TimeUnit.SECONDS);
        sw.get(10, TimeUnit.SECONDS);
    }

    /**
     * Two-way traffic with several senders on each side: {@code writers} threads of {@code pool} write
     * {@code requests} requests of {@code requestSize} bytes from the client (an equal share each); the server reads
     * them and has each complete request answered with {@code answerSize} bytes by a thread of {@code pool}, several
     * answers being written at once while requests keep coming; the client reads all answers. 120 s at most.
     */
    public static void requestsAndAnswers(Connection conn, ExecutorService pool, int requests, int requestSize,
            int answerSize, int writers) throws Exception {
        TcpSocket c = conn.client();
        TcpSocket s = conn.server();
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> answer(s, pool, requests, requestSize, answerSize), pool);
        CompletableFuture<Void> answers = CompletableFuture.runAsync(() -> drain(c, (long) requests * answerSize), pool);
        CompletableFuture<?>[] w = new CompletableFuture<?>[writers];
        for (int i = 0; i < writers; i++) w[i] = CompletableFuture.runAsync(() -> writeZeros(c, requestSize, requests / writers), pool);
        CompletableFuture.allOf(w).get(120, TimeUnit.SECONDS);
        answers.get(120, TimeUnit.SECONDS);
        server.get(10, TimeUnit.SECONDS);
    }

    /**
     * {@code writers} threads of {@code pool} each write {@code chunks} / {@code writers} chunks of {@code chunkSize}
     * bytes from the client; the server reads them all. 120 s at most.
     */
    public static void parallelWrites(Connection conn, ExecutorService pool, int chunks, int chunkSize, int writers)
            throws Exception {
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> drain(conn.server(), (long) chunks * chunkSize), pool);
        CompletableFuture<?>[] w = new CompletableFuture<?>[writers];
        for (int i = 0; i < writers; i++) w[i] = CompletableFuture.runAsync(() -> writeZeros(conn.client(), chunkSize, chunks / writers), pool);
        CompletableFuture.allOf(w).get(120, TimeUnit.SECONDS);
        reader.get(120, TimeUnit.SECONDS);
    }

    /** Each of {@code counters} of {@code ns} is 0 (described by the namespace's and the counter's name). */
    public static void assertZero(NetNamespace ns, MibCounter... counters) {
        for (MibCounter m : counters) assertThat(ns.mib().get(m)).as(ns.name() + " " + m.name()).isZero();
    }

    /** {@code size} bytes from {@code new Random(seed)}. */
    public static byte[] random(int size, long seed) {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** Reads {@code total} bytes from {@code s}; the stream ending sooner fails. */
    public static void drain(TcpSocket s, long total) {
        byte[] in = new byte[65536];
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

    /** {@code count} writes of {@code size} zero bytes on {@code s}. */
    private static void writeZeros(TcpSocket s, int size, int count) {
        byte[] b = new byte[size];
        try {
            for (int i = 0; i < count; i++) s.write(b, 0, size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads requests of {@code requestSize} bytes from {@code s}; a thread of {@code pool} answers each. */
    private static void answer(TcpSocket s, ExecutorService pool, int requests, int requestSize, int answerSize) {
        byte[] in = new byte[65536];
        try {
            long got = 0;
            long answered = 0;
            CompletableFuture<?>[] sent = new CompletableFuture<?>[requests];
            while (answered < requests) {
                int n = s.read(in, 0, in.length);
                if (n < 0) throw new IOException("EOF after " + got + " bytes");
                got += n;
                for (; answered < got / requestSize; answered++) {
                    sent[(int) answered] = CompletableFuture.runAsync(() -> writeZeros(s, answerSize, 1), pool);
                }
            }
            CompletableFuture.allOf(sent).join();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeAndShutdown(TcpSocket s, byte[] data, int writeSize) {
        try {
            for (int off = 0; off < data.length; off += writeSize) s.write(data, off, Math.min(writeSize, data.length - off));
            s.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@code s} to the end of the stream, which must come after {@code size} bytes; their SHA-256. */
    private static byte[] readDigest(TcpSocket s, long size) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            assertThat(digestToEnd(s, md)).isEqualTo(size);
            return md.digest();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads {@code s} to the end of the stream into {@code md}; how many bytes it read. */
    public static long digestToEnd(TcpSocket s, MessageDigest md) throws IOException {
        byte[] buf = new byte[65536];
        long total = 0;
        int n;
        while ((n = s.read(buf, 0, buf.length)) > 0) {
            md.update(buf, 0, n);
            total += n;
        }
        return total;
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
