package io.jnet.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.app.FetchResult;
import io.jnet.app.JnetFetch;
import io.jnet.app.JnetServer;
import io.jnet.app.JnetStreams;
import io.jnet.app.PatternBytes;
import io.jnet.app.StreamConnection;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The jnet stream adapters and the serve/fetch services over jnet's own loopback (no root needed). */
@Timeout(60)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class JnetStreamsTest {

    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void servicesAnswerOverJnetLoopback() throws Exception {
        try (NetNamespace ns = NetNamespace.create("streams");
             JnetServer server = JnetServer.start(ns, LOOPBACK, new JnetServer.Ports(8080, 7007, 9009))) {
            long n = 3L * 1024 * 1024 + 5;
            FetchResult r = new JnetFetch(ns, Duration.ofSeconds(5), Duration.ofSeconds(30))
                    .fetch("http://127.0.0.1:8080/bytes/" + n, OutputStream.nullOutputStream());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bytes()).isEqualTo(n);
            assertThat(r.sha256()).isEqualTo(PatternBytes.sha256(n));

            try (StreamConnection echo = JnetStreams.connector(ns, Duration.ofSeconds(5))
                    .connect(new InetSocketAddress(LOOPBACK, 7007))) {
                byte[] msg = "hello over jnet".getBytes(StandardCharsets.US_ASCII);
                echo.out().write(msg);
                echo.shutdownOutput();
                echo.shutdownOutput(); // idempotent
                assertThat(echo.in().readAllBytes()).isEqualTo(msg);
                assertThat(echo.peer()).isEqualTo("127.0.0.1:7007");
            }
            try (StreamConnection discard = JnetStreams.connector(ns, null).connect(new InetSocketAddress(LOOPBACK, 9009))) {
                discard.out().write(new byte[100_000]);
                discard.shutdownOutput();
                assertThat(discard.in().read()).isEqualTo(-1);
            }
            assertThat(server.describe()).hasSize(3).anySatisfy(l -> assertThat(l).contains("http://127.0.0.1:8080/"));
            waitFor(() -> server.discard().bytesDiscarded() == 100_000);
            assertThat(server.echo().bytesEchoed()).isEqualTo(15);
            assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        }
    }

    @Test
    void connectToAClosedPortIsRefusedAndBindConflictsAreReported() throws Exception {
        try (NetNamespace ns = NetNamespace.create("refused");
             JnetServer server = JnetServer.start(ns, LOOPBACK, new JnetServer.Ports(8080, 0, 0))) {
            assertThat(server.echo()).isNull();
            assertThatThrownBy(() -> JnetStreams.connector(ns, Duration.ofSeconds(5)).connect(new InetSocketAddress(LOOPBACK, 81)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
            assertThatThrownBy(() -> JnetServer.start(ns, LOOPBACK, new JnetServer.Ports(8081, 7, 8080)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            // the failed start released what it had bound: 8081 and 7 are free again
            JnetServer.start(ns, LOOPBACK, new JnetServer.Ports(8081, 7, 0)).close();
        }
    }

    @Test
    void fetchReportsStatusesAndTheStacksErrno() throws Exception {
        try (NetNamespace ns = NetNamespace.create("fetch");
             JnetServer server = JnetServer.start(ns, LOOPBACK, new JnetServer.Ports(8080, 0, 0))) {
            JnetFetch fetch = new JnetFetch(ns, Duration.ofSeconds(5), Duration.ofSeconds(30));
            java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
            FetchResult missing = fetch.fetch("http://127.0.0.1:8080/nothing", sink);
            assertThat(missing.status()).isEqualTo(404);
            assertThat(missing.reason()).isEqualTo("Not Found");
            assertThat(missing.bytes()).isPositive();
            assertThat(sink.size()).as("only a 2xx body goes to the sink").isZero();
            FetchResult empty = fetch.fetch("http://127.0.0.1:8080/bytes/0", sink);
            assertThat(empty.status()).isEqualTo(200);
            assertThat(empty.bytes()).isZero();
            FetchResult small = fetch.fetch("http://127.0.0.1:8080/bytes/1000", sink);
            assertThat(sink.toByteArray()).hasSize(1000);
            assertThat(small.sha256()).isEqualTo(PatternBytes.sha256(1000));
            assertThat(server.http().requests()).isEqualTo(3);
            assertThatThrownBy(() -> fetch.fetch("http://127.0.0.1:81/", sink))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
        }
    }

    @Test
    void connectTimeoutGivesEtimedout() throws Exception {
        try (NetNamespace ns = NetNamespace.create("timeout")) {
            io.jnet.link.VethPair pair = io.jnet.link.VethPair.create("v0", "v1");
            ns.attach(pair.a());
            ns.addAddress("v0", "192.0.2.2/24");
            // nothing is attached to v1: the SYN goes unanswered (no ARP reply)
            long start = System.nanoTime();
            assertThatThrownBy(() -> JnetStreams.connector(ns, Duration.ofMillis(300))
                    .connect(new InetSocketAddress("192.0.2.1", 80)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isIn(Errno.ETIMEDOUT, Errno.EHOSTUNREACH));
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
        }
    }

    @Test
    void closingTheAcceptorWakesAcceptAndClosingAConnectionWakesItsReader() throws Exception {
        try (NetNamespace ns = NetNamespace.create("close")) {
            JnetStreams.Acceptor acceptor = JnetStreams.listen(ns, new InetSocketAddress(LOOPBACK, 0), 4);
            int port = acceptor.localAddress().getPort();
            assertThat(port).isPositive();

            StreamConnection client = JnetStreams.connector(ns, null).connect(new InetSocketAddress(LOOPBACK, port));
            StreamConnection accepted = acceptor.accept();
            CompletableFuture<Object> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    return accepted.in().read(new byte[10]);
                } catch (IOException e) {
                    return e;
                }
            });
            Thread.sleep(100);
            assertThat(reader).isNotDone();
            accepted.close();
            // woken: an IOException (closed) or end of stream, not a hang
            assertThat(reader.get(5, TimeUnit.SECONDS))
                    .satisfiesAnyOf(v -> assertThat(v).isInstanceOf(IOException.class), v -> assertThat(v).isEqualTo(-1));
            client.close();

            CompletableFuture<Object> blockedAccept = CompletableFuture.supplyAsync(() -> {
                try {
                    return acceptor.accept();
                } catch (IOException e) {
                    return e;
                }
            });
            Thread.sleep(100);
            assertThat(blockedAccept).isNotDone();
            acceptor.close();
            assertThat(blockedAccept.get(5, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
            assertThatThrownBy(acceptor::accept).isInstanceOf(IOException.class);
            assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        }
    }

    static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("condition not met within 5 s");
            Thread.sleep(10);
        }
    }
}
