package io.jnet.rds;

import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import io.jnet.tcp.TcpProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Shared pieces of the RDS fault tests: sockets, the RDS TCP connections of a namespace, counters. */
final class RdsFaultNet {
    /** Linux's RDS_TCP_PORT. */
    static final int RDS_TCP_PORT = 16385;

    private RdsFaultNet() { }

    /**
     * Opens {@code n} RDS sockets bound to {@code ip} ports {@code firstPort}.., with SO_SNDBUF and SO_RCVBUF
     * {@code bufBytes} (net.core.wmem_max / rmem_max raised to allow it; Linux doubles the value, so messages of up
     * to {@code bufBytes} fit in the send queue's half).
     */
    static List<RdsSocket> sockets(NetNamespace ns, String ip, int firstPort, int n, int bufBytes) throws IOException {
        ns.sysctl().set("net.core.wmem_max", Integer.toString(Math.max(bufBytes, 212992)));
        ns.sysctl().set("net.core.rmem_max", Integer.toString(Math.max(bufBytes, 212992)));
        List<RdsSocket> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RdsSocket s = ns.openRdsSocket();
            s.setOption(SocketOption.SO_SNDBUF, bufBytes);
            s.setOption(SocketOption.SO_RCVBUF, bufBytes);
            s.bind(new InetSocketAddress(ip, firstPort + i));
            l.add(s);
        }
        return l;
    }

    static List<InetSocketAddress> addresses(List<RdsSocket> l) {
        return l.stream().map(RdsSocket::localAddress).toList();
    }

    static void close(List<RdsSocket> l) {
        for (RdsSocket s : l) {
            try {
                s.close();
            } catch (Exception ignored) {
                // closing what is left of a test
            }
        }
    }

    /**
     * The namespace's ESTABLISHED TCP connections to or from port 16385, as {@code "local:port -> remote:port"}.
     */
    static List<String> rdsConnections(NetNamespace ns) {
        List<String> out = new ArrayList<>();
        for (String c : ns.extension(TcpProtocol.class).describeConnections()) {
            if (!c.startsWith("ESTAB ")) continue;
            String tuple = c.substring("ESTAB ".length());
            if (tuple.contains(":" + RDS_TCP_PORT + " ") || tuple.endsWith(":" + RDS_TCP_PORT)) out.add(tuple);
        }
        return out;
    }

    /** Every TCP endpoint of the namespace (any state), for failure messages. */
    static List<String> allConnections(NetNamespace ns) {
        return ns.extension(TcpProtocol.class).describeConnections();
    }

    /** {@code "local:port -> remote:port"} seen from the other end. */
    static String reverse(String tuple) {
        String[] p = tuple.split(" -> ");
        return p[1] + " -> " + p[0];
    }

    /** An RDS counter of the namespace, by its Linux name (s_conn_reset, s_recv_drop_old_seq, ...). */
    static long counter(NetNamespace ns, String name) {
        return RdsProtocol.of(ns).statistics().get(name);
    }

    /** The namespace's RDS connections (state, queues, TCP ends) and non-zero counters, for failure messages. */
    static String describe(NetNamespace ns) {
        StringBuilder b = new StringBuilder(ns.name()).append(':');
        for (RdsConnection c : RdsProtocol.of(ns).connections()) {
            b.append(' ').append(c).append(" send queue ").append(c.sendQueueSize()).append(" retrans ")
                    .append(c.retransmitQueueSize()).append(" tx seq ").append(c.nextTxSequence()).append(" rx seq ")
                    .append(c.nextRxSequence()).append(" tcp ").append(c.tcpLocalAddress()).append(" -> ")
                    .append(c.tcpRemoteAddress()).append(';');
        }
        RdsProtocol.of(ns).statistics().snapshot().forEach((k, v) -> {
            if (v != 0) b.append(' ').append(k).append(' ').append(v);
        });
        return b.toString();
    }

    /** Waits up to {@code millis} for {@code condition}; false when it did not come true. */
    static boolean await(BooleanSupplier condition, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(1);
        }
        return true;
    }
}
