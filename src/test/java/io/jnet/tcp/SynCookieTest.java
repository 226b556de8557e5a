package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.DeviceStats;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.link.VethPair;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** A SYN flood fills the SYN queue; real clients still connect through SYN cookies (tcp_syncookies=1). */
class SynCookieTest {

    @Test
    void realClientConnectsWhileTheSynQueueIsFull() throws Exception {
        try (NetNamespace a = NetNamespace.create("server"); NetNamespace b = NetNamespace.create("flooder")) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            Set<Integer> blackholed = ConcurrentHashMap.newKeySet();
            b.interpose("veth1", d -> new DropToPorts(d, blackholed)); // the flood never completes its handshakes
            TcpServerSocket srv = TcpServerSocket.open(a);
            srv.bind(new InetSocketAddress("10.0.0.1", 80));
            srv.listen(4);
            List<TcpSocket> flood = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                TcpSocket s = TcpSocket.open(b);
                s.bind(new InetSocketAddress("10.0.0.2", 40000 + i));
                blackholed.add(40000 + i);
                s.setBlocking(false);
                try {
                    s.connect(new InetSocketAddress("10.0.0.1", 80));
                } catch (ErrnoException e) {
                    // EINPROGRESS
                }
                flood.add(s);
            }
            assertThat(a.mib().get(MibCounter.TcpExtSyncookiesSent)).as("SYN queue full: cookies").isPositive();

            TcpSocket c = TcpSocket.open(b);
            c.setOption(SocketOption.SO_SNDTIMEO, Duration.ofSeconds(5));
            c.connect(new InetSocketAddress("10.0.0.1", 80));
            srv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(5));
            TcpSocket s = srv.accept();
            assertThat(s.remoteAddress()).isEqualTo(c.localAddress());
            assertThat(a.mib().get(MibCounter.TcpExtSyncookiesRecv)).isEqualTo(1);
            byte[] msg = "through a cookie".getBytes();
            c.write(msg, 0, msg.length);
            byte[] got = new byte[msg.length];
            int at = 0;
            while (at < got.length) at += s.read(got, at, got.length - at);
            assertThat(got).isEqualTo(msg);
            s.write(msg, 0, msg.length);
            at = 0;
            while (at < got.length) at += c.read(got, at, got.length - at);
            assertThat(new String(got)).isEqualTo("through a cookie");
            // the real client's ACK validated; nothing failed validation
            assertThat(a.mib().get(MibCounter.TcpExtSyncookiesFailed)).isZero();
            for (TcpSocket f : flood) f.close();
            c.close();
            s.close();
            srv.close();
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
        }
    }

    /** Drops received TCP frames addressed to the given local ports. */
    static final class DropToPorts implements NetDevice {
        private final NetDevice inner;
        private final Set<Integer> ports;

        DropToPorts(NetDevice inner, Set<Integer> ports) {
            this.inner = inner;
            this.ports = ports;
        }

        @Override public String name() { return inner.name(); }
        @Override public int mtu() { return inner.mtu(); }
        @Override public void setMtu(int mtu) { inner.setMtu(mtu); }
        @Override public long macAddress() { return inner.macAddress(); }
        @Override public boolean isLoopback() { return false; }
        @Override public void transmit(PacketBuffer frame) { inner.transmit(frame); }
        @Override public DeviceStats stats() { return inner.stats(); }
        @Override public void close() { inner.close(); }

        @Override
        public void setReceiver(FrameReceiver receiver) {
            inner.setReceiver((d, f) -> {
                byte[] x = f.array();
                int o = f.dataStart();
                if (f.length() >= 54 && Ethernet.etherType(x, o) == Ethernet.TYPE_IPV4
                        && Ipv4.protocol(x, o + 14) == Ipv4.PROTO_TCP) {
                    int t = o + 14 + Ipv4.headerLength(x, o + 14);
                    if (ports.contains(Tcp.destinationPort(x, t))) {
                        f.release();
                        return;
                    }
                }
                receiver.receive(this, f);
            });
        }
    }
}
