package io.jnet.rds;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.wire.RdsHeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The RDS-over-TCP listener of a namespace (Linux's rds_tcp_listen_init, net/rds/tcp_listen.c) on
 * 0.0.0.0:16385. Its readiness listener schedules the accepts on the RDS worker, never accepting itself.
 */
final class RdsTcpListener {
    private final RdsProtocol proto;
    private final AtomicBoolean acceptQueued = new AtomicBoolean();
    private volatile TcpServerSocket srv;

    RdsTcpListener(RdsProtocol proto) { this.proto = proto; }

    void open() {
        TcpServerSocket s = proto.ns.openTcpServerSocket();
        try {
            s.setOption(SocketOption.SO_REUSEADDR, true);
            s.bind(new InetSocketAddress(RdsHeader.TCP_PORT));
            s.listen(64);
            s.setBlocking(false);
            s.addReadinessListener(x -> {
                if (acceptQueued.compareAndSet(false, true)) proto.worker.execute(this::acceptAll);
            });
            srv = s;
        } catch (IOException e) {
            // the port is taken (by an application): this namespace accepts no RDS connections, as Linux's
            // module would fail to load; outgoing connections still work
            s.close();
        }
    }

    boolean isOpen() { return srv != null; }

    /** rds_tcp_accept_worker: takes every pending connection. */
    private void acceptAll() {
        acceptQueued.set(false);
        TcpServerSocket s = srv;
        if (s == null) return;
        while (true) {
            TcpSocket c;
            try {
                c = s.accept();
            } catch (IOException e) {
                return;
            }
            if (c == null) return;
            try {
                proto.tcp.acceptOne(c);
            } catch (RuntimeException e) {
                // counted, and the rest of the accept queue is still taken (acceptOne closed the socket)
                proto.ns.reportInternalError(e);
            }
        }
    }

    void close() {
        TcpServerSocket s = srv;
        srv = null;
        if (s != null) s.close();
    }
}
