package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.VethPair;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpInfo;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
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
            link(a, b);
            Set<Integer> blackholed = ConcurrentHashMap.newKeySet();
            b.interpose("veth1", d -> { // the flood never completes its handshakes
                FilterDevice f = new FilterDevice(d, b.clock());
                f.dropInbound(frame -> blackholed.contains(frame.dstPort()));
                return f;
            });
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
            // the options came back in the echoed timestamp (cookie_init_timestamp / cookie_timestamp_decode):
            // timestamps, SACK and window scaling
            TcpInfo si = s.info();
            TcpInfo ci = c.info();
            int opts = si.options();
            assertThat(opts & TcpInfo.TCPI_OPT_TIMESTAMPS).isNotZero();
            assertThat(opts & TcpInfo.TCPI_OPT_SACK).isNotZero();
            assertThat(opts & TcpInfo.TCPI_OPT_WSCALE).isNotZero();
            assertThat(ci.options() & TcpInfo.TCPI_OPT_SACK).isNotZero();
            assertThat(ci.options() & TcpInfo.TCPI_OPT_WSCALE).isNotZero();
            assertThat(si.sndWscale()).as("the client's window scale, from the echoed timestamp").isEqualTo(ci.rcvWscale());
            assertThat(si.rcvWscale()).as("the server's, as its SYN-ACK offered it").isEqualTo(ci.sndWscale());
            assertThat(si.rcvWscale()).isPositive();
            assertThat(s.info().sndMss()).as("MSS class 1460 less the timestamp option").isEqualTo(1448);
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

    @Test
    void syncookiesTwoAnswersEverySynWithACookie() throws Exception {
        try (NetNamespace a = NetNamespace.create("server"); NetNamespace b = NetNamespace.create("client")) {
            link(a, b);
            a.sysctl().set("net.ipv4.tcp_syncookies", "2");
            TcpServerSocket srv = TcpServerSocket.open(a);
            srv.bind(new InetSocketAddress("10.0.0.1", 80));
            srv.listen(16);
            srv.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(5));
            for (int i = 1; i <= 3; i++) {
                try (TcpSocket c = TcpSocket.open(b)) {
                    c.setOption(SocketOption.SO_SNDTIMEO, Duration.ofSeconds(5));
                    c.connect(new InetSocketAddress("10.0.0.1", 80));
                    try (TcpSocket s = srv.accept()) {
                        c.write(new byte[] {(byte) i}, 0, 1);
                        byte[] got = new byte[1];
                        assertThat(s.read(got, 0, 1)).isEqualTo(1);
                        assertThat(got[0]).isEqualTo((byte) i);
                    }
                }
                // no SYN queue in use, yet a cookie for each SYN (tcp_conn_request: syncookies == 2)
                assertThat(a.mib().get(MibCounter.TcpExtSyncookiesSent)).isEqualTo(i);
                assertThat(a.mib().get(MibCounter.TcpExtSyncookiesRecv)).isEqualTo(i);
                assertThat(a.mib().get(MibCounter.TcpExtTCPReqQFullDoCookies)).isEqualTo(i);
            }
            assertThat(a.mib().get(MibCounter.TcpExtSyncookiesFailed)).isZero();
            srv.close();
            assertThat(a.internalErrors()).isZero();
        }
    }

    @Test
    void syncookiesZeroDropsSynsOnAFullQueueAndCountsThem() throws Exception {
        try (NetNamespace a = NetNamespace.create("server"); NetNamespace b = NetNamespace.create("flooder")) {
            link(a, b);
            a.sysctl().set("net.ipv4.tcp_syncookies", "0");
            b.interpose("veth1", d -> { // the handshakes never complete
                FilterDevice f = new FilterDevice(d, b.clock());
                f.dropInbound(frame -> frame.dstPort() >= 40000);
                return f;
            });
            TcpServerSocket srv = TcpServerSocket.open(a);
            srv.bind(new InetSocketAddress("10.0.0.1", 80));
            srv.listen(2);
            List<TcpSocket> flood = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                TcpSocket s = TcpSocket.open(b);
                s.bind(new InetSocketAddress("10.0.0.2", 40000 + i));
                s.setBlocking(false);
                try {
                    s.connect(new InetSocketAddress("10.0.0.1", 80));
                } catch (ErrnoException e) {
                    // EINPROGRESS
                }
                flood.add(s);
            }
            assertThat(a.mib().get(MibCounter.TcpExtSyncookiesSent)).isZero();
            // two SYNs fill the queue, four are dropped (more if a SYN was retransmitted meanwhile)
            long dropped = a.mib().get(MibCounter.TcpExtTCPReqQFullDrop);
            assertThat(dropped).isGreaterThanOrEqualTo(4);
            assertThat(a.mib().get(MibCounter.TcpExtListenDrops)).isEqualTo(dropped);
            for (TcpSocket f : flood) f.close();
            srv.close();
        }
    }

    @Test
    void cookieTimestampCarriesTheOptionsInItsLowSixBitsAndNeverRunsAhead() {
        for (int now : new int[] {0, 1, 63, 64, 1000, 0x7FFFFFFF, -1, -64, 0x12345678}) {
            for (int opts : new int[] {0x0F, 0x1F, 0x10 | 7, 0}) {
                int ts = SynCookies.cookieTimestamp(now, opts);
                assertThat(ts & 0x3F).isEqualTo(opts);
                assertThat(now - ts).as("now %d opts %x", now, opts).isBetween(0, 63);
            }
        }
    }

    /** A veth pair between the server {@code a} (10.0.0.1/24, veth0) and the client {@code b} (10.0.0.2/24, veth1). */
    private static void link(NetNamespace a, NetNamespace b) {
        VethPair p = VethPair.create("veth0", "veth1");
        a.attach(p.a());
        b.attach(p.b());
        a.addAddress("veth0", "10.0.0.1/24");
        b.addAddress("veth1", "10.0.0.2/24");
    }
}
