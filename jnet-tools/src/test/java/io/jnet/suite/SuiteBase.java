package io.jnet.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * Common set-up of the socket behaviour suite: each test builds a fresh {@link Topology} from its
 * {@link TransportPath} with {@link #open}, runs on real time, and after the test every namespace must
 * report no internal error (an exception caught in a receive or timer path), before and after close.
 */
abstract class SuiteBase {
    static final int PORT = 5001;

    Topology topo;
    final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    static List<TransportPath> paths() { return TransportPaths.all(); }

    Topology open(TransportPath path) throws Exception {
        topo = path.open();
        return topo;
    }

    InetSocketAddress server(int port) { return new InetSocketAddress(topo.serverAddress(), port); }

    TcpServerSocket listen(int port, int backlog) throws IOException {
        TcpServerSocket srv = TcpServerSocket.open(topo.server());
        srv.bind(server(port));
        srv.listen(backlog);
        return srv;
    }

    TcpSocket connect(int port) throws IOException {
        TcpSocket c = TcpSocket.open(topo.client());
        c.connect(server(port));
        return c;
    }

    /**
     * The future's result within {@code seconds}; on timeout an AssertionError that shows
     * {@link Topology#describe()} (which connection is stuck where).
     */
    <T> T within(Future<T> f, int seconds, String what) throws Exception {
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " not done within " + seconds + " s; topology:\n" + topo.describe(), e);
        }
    }

    @AfterEach
    void checkAndClose() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        if (topo == null) return;
        try {
            for (NetNamespace ns : topo.namespaces()) {
                assertThat(ns.internalErrors()).as("internal errors in %s: %s", ns, ns.lastInternalError()).isZero();
            }
        } finally {
            topo.close();
        }
        for (NetNamespace ns : topo.namespaces()) {
            assertThat(ns.internalErrors()).as("internal errors in %s at close: %s", ns, ns.lastInternalError()).isZero();
        }
    }
}
