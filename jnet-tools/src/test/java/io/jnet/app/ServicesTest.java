package io.jnet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ServicesTest {

    static JdkStreams.Acceptor listen() throws IOException {
        return JdkStreams.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    }

    static Socket connect(JdkStreams.Acceptor acceptor) throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), acceptor.localAddress().getPort());
    }

    /** Sends {@code data} from another thread while reading everything the server sends back. */
    static byte[] roundTrip(Socket socket, byte[] data) throws Exception {
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                for (int off = 0; off < data.length; off += 10_000) {
                    out.write(data, off, Math.min(10_000, data.length - off));
                }
                socket.shutdownOutput();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        byte[] back = socket.getInputStream().readAllBytes();
        writer.get(10, TimeUnit.SECONDS);
        return back;
    }

    static void awaitValue(LongSupplier value, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(value.getAsLong()).isEqualTo(expected);
    }

    @Test
    void echoReturnsRandomDataOnConcurrentConnections() throws Exception {
        JdkStreams.Acceptor acceptor = listen();
        try (EchoService echo = EchoService.start(acceptor);
             ExecutorService clients = Executors.newFixedThreadPool(4)) {
            List<Future<Boolean>> results = new ArrayList<>();
            long total = 0;
            for (int c = 0; c < 4; c++) {
                byte[] data = new byte[700_000 + c * 1234];
                new Random(c).nextBytes(data);
                total += data.length;
                results.add(clients.submit(() -> {
                    try (Socket socket = connect(acceptor)) {
                        return java.util.Arrays.equals(roundTrip(socket, data), data);
                    }
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get(20, TimeUnit.SECONDS)).isTrue();
            }
            awaitValue(echo::bytesEchoed, total);
            assertThat(echo.server().acceptedConnections()).isEqualTo(4);
            awaitValue(() -> echo.server().activeConnections(), 0);
        }
    }

    @Test
    void echoOfNothingIsNothing() throws Exception {
        JdkStreams.Acceptor acceptor = listen();
        try (EchoService echo = EchoService.start(acceptor); Socket socket = connect(acceptor)) {
            assertThat(roundTrip(socket, new byte[0])).isEmpty();
            assertThat(echo.bytesEchoed()).isZero();
        }
    }

    @Test
    void discardCountsBytesAndSendsNothing() throws Exception {
        JdkStreams.Acceptor acceptor = listen();
        try (DiscardService discard = DiscardService.start(acceptor)) {
            long total = 0;
            for (int c = 0; c < 3; c++) {
                byte[] data = new byte[200_000 * (c + 1)];
                new Random(c).nextBytes(data);
                total += data.length;
                try (Socket socket = connect(acceptor)) {
                    assertThat(roundTrip(socket, data)).isEmpty();
                }
            }
            awaitValue(discard::bytesDiscarded, total);
            assertThat(discard.server().acceptedConnections()).isEqualTo(3);
        }
    }

    @Test
    void closingAServiceClosesLiveConnectionsAndStopsAccepting() throws Exception {
        JdkStreams.Acceptor acceptor = listen();
        int port = acceptor.localAddress().getPort();
        EchoService echo = EchoService.start(acceptor);
        try (Socket socket = connect(acceptor)) {
            socket.getOutputStream().write(new byte[] {1, 2, 3});
            byte[] back = socket.getInputStream().readNBytes(3);
            assertThat(back).containsExactly(1, 2, 3);
            assertThat(echo.server().activeConnections()).isEqualTo(1);

            echo.close();

            assertThat(echo.server().activeConnections()).isZero();
            assertThat(echo.server().isClosed()).isTrue();
            // the server side is gone: the client sees end of stream (FIN) or a reset
            InputStream in = socket.getInputStream();
            int read;
            try {
                read = in.read();
            } catch (IOException reset) {
                read = -1;
            }
            assertThat(read).isEqualTo(-1);
        }
        boolean refused;
        try {
            new Socket(InetAddress.getLoopbackAddress(), port).close();
            refused = false;
        } catch (IOException e) {
            refused = true;
        }
        assertThat(refused).as("connect after close is refused").isTrue();
        echo.close(); // idempotent
    }

    @Test
    void aFailingHandlerEndsOnlyItsConnection() throws Exception {
        JdkStreams.Acceptor acceptor = listen();
        // the server logs the handler's failure as a warning with its stack trace: captured here, not on the console
        Logger log = Logger.getLogger(ConnectionServer.class.getName());
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override public void publish(LogRecord r) { logged.add(r); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        boolean useParentHandlers = log.getUseParentHandlers();
        log.addHandler(capture);
        log.setUseParentHandlers(false);
        try (ConnectionServer server = ConnectionServer.start("test", acceptor, connection -> {
            int first = connection.in().read();
            if (first == 'x') {
                throw new IllegalStateException("handler bug");
            }
            connection.out().write(first);
            connection.out().flush();
        })) {
            try (Socket bad = connect(acceptor)) {
                bad.getOutputStream().write('x');
                assertThat(bad.getInputStream().read()).isEqualTo(-1);
            }
            try (Socket good = connect(acceptor)) {
                good.getOutputStream().write('y');
                assertThat(good.getInputStream().read()).isEqualTo('y');
            }
            awaitValue(server::connectionErrors, 1);
            awaitValue(() -> logged.size(), 1);
            assertThat(logged.getFirst().getLevel()).isEqualTo(Level.WARNING);
            assertThat(logged.getFirst().getThrown()).isInstanceOf(IllegalStateException.class).hasMessage("handler bug");
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(useParentHandlers);
        }
    }
}
