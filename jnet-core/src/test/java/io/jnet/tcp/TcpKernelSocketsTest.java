package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hooks for in-stack owners of TCP sockets ({@link TcpKernelSockets}). */
@Timeout(60)
class TcpKernelSocketsTest {

    @Test
    void drainAndCloseReportsASinkFailureAndStillCloses() throws Exception {
        try (NetNamespace a = NetNamespace.create("tks-a"); NetNamespace b = NetNamespace.create("tks-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            TcpServerSocket srv = b.openTcpServerSocket();
            srv.bind(new InetSocketAddress("10.0.0.2", 7000));
            srv.listen(4);
            TcpSocket c = a.openTcpSocket();
            c.connect(new InetSocketAddress("10.0.0.2", 7000));
            TcpSocket s = srv.accept();
            s.write(new byte[100], 0, 100);
            long end = System.nanoTime() + 10_000_000_000L;
            while (c.available() < 100 && System.nanoTime() < end) Thread.sleep(1);
            assertThat(c.available()).isEqualTo(100);
            long before = a.internalErrors();
            TcpKernelSockets.drainAndClose(c, new byte[64], (buf, n) -> {
                throw new IllegalStateException("sink failed");
            });
            assertThat(c.isClosed()).isTrue();
            assertThat(a.internalErrors() - before).as("the sink's exception is reported").isEqualTo(1);
            assertThat(a.lastInternalError()).hasMessage("sink failed");
            s.close();
            srv.close();
        }
    }
}
