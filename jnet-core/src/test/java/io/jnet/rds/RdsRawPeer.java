package io.jnet.rds;

import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpSocket;
import io.jnet.wire.RdsHeader;
import java.io.IOException;
import java.time.Duration;

/**
 * A raw TCP connection from namespace a of an {@link RdsPair} to b's RDS port 16385, standing for a broken or
 * hostile RDS peer: b's RDS takes it as its connection from a, comes UP on it and sends its congestion map
 * first, which the constructor reads off (unless told not to). Reads time out after 10 s.
 */
final class RdsRawPeer implements AutoCloseable {
    final TcpSocket s;
    /** b's congestion-map header, as it came first; null when not read. */
    final byte[] congHeader;

    RdsRawPeer(RdsPair p) throws Exception { this(p, true); }

    RdsRawPeer(RdsPair p, boolean readCongMap) throws Exception {
        s = p.a.openTcpSocket();
        s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(10));
        s.connect(addr(B, RdsHeader.TCP_PORT));
        if (readCongMap) {
            congHeader = readFully(RdsHeader.LENGTH);
            readFully((int) RdsHeader.length(congHeader, 0));
        } else {
            congHeader = null;
        }
    }

    /** Writes one message (header with h_csum 0, then the payload), blocking until TCP took it. */
    void send(long seq, int sport, int dport, int flags, byte[] payload) throws IOException {
        write(new RdsMessage(seq, sport, dport, flags, payload));
    }

    void write(RdsMessage m) throws IOException { write(RdsStreamWriter.encode(m)); }

    void write(byte[] b) throws IOException { s.write(b, 0, b.length); }

    byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        for (int off = 0; off < n; ) {
            int r = s.read(b, off, n - off);
            if (r < 0) throw new IOException("EOF");
            off += r;
        }
        return b;
    }

    @Override
    public void close() { s.close(); }
}
