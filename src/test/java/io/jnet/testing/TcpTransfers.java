package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A checked one-way TCP transfer between two namespaces, shared by the transport tests. */
public final class TcpTransfers {
    private TcpTransfers() {}

    /** {@code size} random bytes client to server on port 5001 of {@code addr}, SHA-256 compared, "done" back. */
    public static void transfer(NetNamespace client, NetNamespace server, String addr, int size) throws Exception {
        byte[] data = new byte[size];
        new Random(1).nextBytes(data);
        try (TcpServerSocket srv = TcpServerSocket.open(server)) {
            srv.bind(new InetSocketAddress(addr, 5001));
            srv.listen(16);
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try (TcpSocket s = srv.accept()) {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    byte[] buf = new byte[65536];
                    int n;
                    long total = 0;
                    while ((n = s.read(buf, 0, buf.length)) > 0) {
                        md.update(buf, 0, n);
                        total += n;
                    }
                    s.write("done".getBytes(), 0, 4);
                    assertThat(total).isEqualTo(size);
                    return md.digest();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (TcpSocket c = TcpSocket.open(client)) {
                c.connect(new InetSocketAddress(addr, 5001));
                for (int off = 0; off < size; off += 10000) c.write(data, off, Math.min(10000, size - off));
                c.shutdownOutput();
                byte[] buf = new byte[16];
                int n = c.read(buf, 0, 16);
                assertThat(new String(buf, 0, n)).isEqualTo("done");
                assertThat(c.read(buf, 0, 16)).isEqualTo(-1);
            }
            assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
        }
    }
}
