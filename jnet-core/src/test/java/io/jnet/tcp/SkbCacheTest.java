package io.jnet.tcp;

import static io.jnet.testing.PoolChecks.awaitAllReturned;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketPool;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The per-socket buffer caches (net.ipv4.tcp_tx_skb_cache, tcp_rx_skb_cache) on a request/response exchange over
 * loopback and veth: with a cache on, writes take the parked buffer and the receive path frees what the reader
 * parked (with both on, the TX cache rarely hits: the reader's parked buffer is a clone of the writer's segment,
 * which stays shared); off, neither happens; either way every byte arrives, the caches are purged when the connections end
 * and every buffer goes back to its pool.
 */
class SkbCacheTest {
    private static final int ROUNDS = 2000;

    @ParameterizedTest(name = "{0}: tx {1}, rx {2}")
    @CsvSource({"lo,0,0", "lo,1,0", "lo,0,1", "lo,1,1", "veth,1,1", "veth,0,0"})
    void requestResponseWithCachesOnAndOff(String path, int tx, int rx) throws Exception {
        try (NetNamespace a = NetNamespace.create("cache-a"); NetNamespace b = NetNamespace.create("cache-b")) {
            PacketPool poolA = new PacketPool();
            PacketPool poolB = new PacketPool();
            a.setAllocator(poolA);
            b.setAllocator(poolB);
            NetNamespace server = a;
            String addr = "127.0.0.1";
            if (path.equals("veth")) {
                Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
                server = b;
                addr = "10.0.0.2";
            }
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                ns.sysctl().set("net.ipv4.tcp_tx_skb_cache", String.valueOf(tx));
                ns.sysctl().set("net.ipv4.tcp_rx_skb_cache", String.valueOf(rx));
            }
            try (TcpServerSocket srv = TcpServerSocket.open(server)) {
                srv.bind(new InetSocketAddress(addr, 7000));
                srv.listen(1);
                TcpSocket client = TcpSocket.open(a);
                client.setOption(SocketOption.TCP_NODELAY, true);
                client.connect(new InetSocketAddress(addr, 7000));
                TcpSocket peer = srv.accept();
                peer.setOption(SocketOption.TCP_NODELAY, true);
                CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
                    byte[] buf = new byte[100];
                    try {
                        for (int i = 0; i < ROUNDS; i++) {
                            readFully(peer, buf, 100);
                            peer.write(buf, 0, 100);
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                byte[] req = new byte[100];
                byte[] resp = new byte[100];
                for (int i = 0; i < ROUNDS; i++) {
                    for (int k = 0; k < 100; k++) req[k] = (byte) (i + k);
                    client.write(req, 0, 100);
                    readFully(client, resp, 100);
                    assertThat(resp).isEqualTo(req);
                }
                echo.get(30, TimeUnit.SECONDS);
                client.close();
                peer.close();
            }
            long hits = a.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits) + b.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits);
            long frees = a.mib().get(MibCounter.TcpExtJnetRxSkbCacheFrees) + b.mib().get(MibCounter.TcpExtJnetRxSkbCacheFrees);
            // with the RX cache on too, the reader parks the clone of the writer's segment, so at ACK time the segment
            // is still shared and is not parked (Linux: skb_cloned); the TX cache can then only hit now and then
            if (tx == 1 && rx == 0) assertThat(hits).as("writes that took the parked buffer").isGreaterThan(ROUNDS / 2);
            else if (tx == 0) assertThat(hits).isZero();
            if (rx == 1) assertThat(frees).as("parked buffers the receive path freed").isGreaterThan(ROUNDS / 2);
            else assertThat(frees).isZero();
            if (tx == 0 && rx == 0) {
                assertThat(a.mib().get(MibCounter.TcpExtJnetSkbCachePurges)).isZero();
            }
            awaitAllReturned(poolA);
            awaitAllReturned(poolB);
        }
    }

    /**
     * Under memory pressure nothing is parked and what was parked is purged (counted); once the pressure is
     * left the caches work again. Every byte arrives and every buffer goes back to the pool.
     */
    @org.junit.jupiter.api.Test
    void memoryPressurePurgesAndStopsTheCaches() throws Exception {
        try (NetNamespace ns = NetNamespace.create("cache-pressure")) {
            PacketPool pool = new PacketPool();
            ns.setAllocator(pool);
            ns.sysctl().set("net.ipv4.tcp_tx_skb_cache", "1");
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
                srv.bind(new InetSocketAddress("127.0.0.1", 7001));
                srv.listen(1);
                TcpSocket client = TcpSocket.open(ns);
                client.setOption(SocketOption.TCP_NODELAY, true);
                client.connect(new InetSocketAddress("127.0.0.1", 7001));
                TcpSocket peer = srv.accept();
                exchange(client, peer, 200, 100);
                long hits = ns.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits);
                assertThat(hits).isGreaterThan(100);
                // request/response is interactive (pingpong mode, tcp_event_data_sent): the client ACKs the last
                // response by its delayed-ACK timer, and only then does the peer park that response's buffer
                long until = System.nanoTime() + 5_000_000_000L;
                while (((TcpConnection) peer).skbCache.parked() == 0 && System.nanoTime() < until) Thread.sleep(5);
                // a second connection's unread 256 KiB holds TCP over a limit of one page: under pressure
                TcpSocket c2 = TcpSocket.open(ns);
                c2.connect(new InetSocketAddress("127.0.0.1", 7001));
                TcpSocket p2 = srv.accept();
                ns.sysctl().set("net.ipv4.tcp_mem", "1 1 1");
                c2.setBlocking(false);
                byte[] bulk = new byte[256 << 10];
                int queued = 0;
                for (int i = 0; i < 100 && queued < bulk.length; i++) {
                    try {
                        queued += c2.write(bulk, queued, bulk.length - queued);
                    } catch (io.jnet.socket.ErrnoException e) {
                        Thread.sleep(1); // EAGAIN: memory refused for now
                    }
                }
                exchange(client, peer, 20, 100);
                assertThat(mem.underPressure()).isTrue();
                assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressures)).isPositive();
                assertThat(ns.mib().get(MibCounter.TcpExtJnetSkbCachePurges)).as("the parked buffer purged").isPositive();
                long during = ns.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits);
                exchange(client, peer, 50, 100);
                assertThat(ns.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits)).as("nothing parked under pressure").isEqualTo(during);
                c2.close();
                p2.close();
                ns.sysctl().set("net.ipv4.tcp_mem", "100000 200000 400000");
                exchange(client, peer, 200, 100);
                assertThat(mem.underPressure()).isFalse();
                assertThat(ns.mib().get(MibCounter.TcpExtJnetTxSkbCacheHits)).as("parked again").isGreaterThan(during + 100);
                client.close();
                peer.close();
            }
            awaitAllReturned(pool);
        }
    }

    /** {@code rounds} requests of {@code size} bytes from {@code client}, each echoed by {@code peer} and checked. */
    private static void exchange(TcpSocket client, TcpSocket peer, int rounds, int size) throws Exception {
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            byte[] buf = new byte[size];
            try {
                for (int i = 0; i < rounds; i++) {
                    readFully(peer, buf, size);
                    peer.write(buf, 0, size);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        byte[] req = new byte[size];
        byte[] resp = new byte[size];
        for (int i = 0; i < rounds; i++) {
            for (int k = 0; k < size; k++) req[k] = (byte) (i * 31 + k);
            client.write(req, 0, size);
            readFully(client, resp, size);
            assertThat(resp).isEqualTo(req);
        }
        echo.get(60, TimeUnit.SECONDS);
    }

    private static void readFully(TcpSocket s, byte[] b, int n) throws java.io.IOException {
        for (int got = 0; got < n; ) {
            int r = s.read(b, got, n - got);
            if (r < 0) throw new java.io.EOFException();
            got += r;
        }
    }

}
