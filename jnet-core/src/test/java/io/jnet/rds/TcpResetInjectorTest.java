package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The forged RSTs of {@link TcpResetInjector} reset a quiet TCP connection on the side they are sent to. */
class TcpResetInjectorTest {

    private static void exchange(TcpSocket c, TcpSocket s) throws Exception {
        c.write(new byte[100], 0, 100);
        s.write(new byte[200], 0, 200);
        byte[] b = new byte[300];
        int got = 0;
        while (got < 200) got += c.read(b, 0, b.length);
        got = 0;
        while (got < 100) got += s.read(b, 0, b.length);
    }

    @Test
    void resetsTheNearOrTheFarSide() throws Exception {
        for (boolean near : new boolean[] {true, false}) {
            try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
                Topology.link(a, b, "eth0", "10.0.0.1/24", "10.0.0.2/24");
                TcpResetInjector inj = TcpResetInjector.interpose(a, "eth0", RdsFaultNet.RDS_TCP_PORT);
                TcpServerSocket l = b.openTcpServerSocket();
                l.bind(new InetSocketAddress("10.0.0.2", RdsFaultNet.RDS_TCP_PORT));
                l.listen(4);
                TcpSocket c = a.openTcpSocket();
                c.connect(new InetSocketAddress("10.0.0.2", RdsFaultNet.RDS_TCP_PORT));
                TcpSocket s = l.accept();
                exchange(c, s);
                assertThat(inj.liveConnections()).hasSize(1);

                assertThat(near ? inj.resetNear() : inj.resetFar()).isEqualTo(1);

                TcpSocket victim = near ? c : s;
                assertThatThrownBy(() -> victim.read(new byte[10], 0, 10)).isInstanceOfSatisfying(ErrnoException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.ECONNRESET));
                assertThat(RdsFaultNet.rdsConnections(near ? b : a)).as("the other side is still up").hasSize(1);
                assertThat(RdsFaultNet.rdsConnections(near ? a : b)).isEmpty();
            }
        }
    }
}
