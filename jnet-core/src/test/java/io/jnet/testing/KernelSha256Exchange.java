package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bulk TCP between jnet and the kernel's TCP (python3 in a test namespace), checked end to end: the
 * receiving side computes the SHA-256 of what it read and sends it back as hex, and the sender compares
 * it with the digest of what it sent.
 */
public final class KernelSha256Exchange {
    private KernelSha256Exchange() {}

    /** The SHA-256 of {@code data} as lower-case hex. */
    public static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /**
     * A kernel TCP client (python3 in {@code ns}) sends {@code file} ({@code size} bytes) to a jnet server
     * on {@code jnetAddress:port}, which answers with the SHA-256 it computed.
     *
     * @param ioTimeout the client's socket timeout; the whole exchange may take twice as long
     */
    public static void kernelSendsToJnet(LinuxNetns ns, NetNamespace jnet, String jnetAddress, int port, Path file,
            long size, String digest, Duration ioTimeout) throws Exception {
        try (TcpServerSocket srv = TcpServerSocket.open(jnet)) {
            srv.bind(new InetSocketAddress(jnetAddress, port));
            srv.listen(4);
            CompletableFuture<Long> server = CompletableFuture.supplyAsync(() -> {
                try (TcpSocket s = srv.accept()) {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    long total = TcpTransfers.digestToEnd(s, md);
                    byte[] hex = HexFormat.of().formatHex(md.digest()).getBytes(StandardCharsets.US_ASCII);
                    s.write(hex, 0, hex.length);
                    return total;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            String client = """
                    import socket, sys
                    data = open(sys.argv[1], 'rb').read()
                    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=int(sys.argv[4]))
                    s.sendall(data)
                    s.shutdown(socket.SHUT_WR)
                    reply = b''
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                    print(reply.decode())
                    """;
            CommandResult r = ns.exec(ioTimeout.multipliedBy(2), "python3", "-c", client, file.toString(), jnetAddress,
                    Integer.toString(port), Long.toString(ioTimeout.toSeconds()));
            assertThat(r.ok()).as(r.describe()).isTrue();
            assertThat(server.get(10, TimeUnit.SECONDS)).isEqualTo(size);
            assertThat(r.stdout().strip()).as("SHA-256 computed by jnet").isEqualTo(digest);
        }
    }

    /**
     * A jnet TCP client sends {@code data} in writes of {@code writeSize} bytes to a kernel server (python3
     * in {@code ns}) on {@code kernelAddress:port}, which answers with the SHA-256 it computed.
     *
     * @param ioTimeout the server's socket timeout
     */
    public static void jnetSendsToKernel(LinuxNetns ns, NetNamespace jnet, String kernelAddress, int port, byte[] data,
            int writeSize, String digest, Duration ioTimeout) throws Exception {
        String server = """
                import hashlib, socket, sys
                l = socket.socket()
                l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                l.bind((sys.argv[1], int(sys.argv[2])))
                l.listen(1)
                l.settimeout(int(sys.argv[3]))
                print('listening', flush=True)
                c, _ = l.accept()
                c.settimeout(int(sys.argv[3]))
                h = hashlib.sha256()
                n = 0
                while True:
                    d = c.recv(65536)
                    if not d:
                        break
                    h.update(d)
                    n += len(d)
                c.sendall(h.hexdigest().encode())
                c.close()
                print(n, h.hexdigest(), flush=True)
                """;
        try (BackgroundProcess p = ns.start("python3", "-c", server, kernelAddress, Integer.toString(port),
                Long.toString(ioTimeout.toSeconds()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!p.stdout().contains("listening")) {
                assertThat(p.isAlive()).as(p.describe()).isTrue();
                assertThat(System.nanoTime()).as("server start: " + p.describe()).isLessThan(deadline);
                Thread.sleep(20);
            }
            try (TcpSocket c = TcpSocket.open(jnet)) {
                c.connect(new InetSocketAddress(kernelAddress, port));
                for (int off = 0; off < data.length; off += writeSize) c.write(data, off, Math.min(writeSize, data.length - off));
                c.shutdownOutput();
                byte[] buf = new byte[256];
                StringBuilder reply = new StringBuilder();
                int n;
                while ((n = c.read(buf, 0, buf.length)) > 0) reply.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
                assertThat(reply.toString()).as("SHA-256 computed by the kernel side").isEqualTo(digest);
            }
            assertThat(p.waitFor(Duration.ofSeconds(10))).as(p.describe()).isZero();
            assertThat(p.stdout()).contains(data.length + " " + digest);
        }
    }
}
