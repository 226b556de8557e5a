package io.jnet.nio.programs;

import com.sun.net.httpserver.HttpServer;
import io.jnet.nio.JnetNetwork;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.Executors;

/**
 * An unchanged pair of JDK programs: the JDK's {@code HttpServer} in one jnet namespace and
 * {@code java.net.http.HttpClient} in another, joined by a veth pair. Run with the provider installed
 * ({@code -Djava.nio.channels.spi.SelectorProvider=io.jnet.nio.JnetSelectorProvider}); prints one line per check.
 */
public final class JdkHttpPair {
    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        NetNamespace a = NetNamespace.create("client");
        NetNamespace b = NetNamespace.create("server");
        Topology.link(a, b, "veth0", "10.9.0.1/24", "10.9.0.2/24");
        byte[] body = new byte[mib << 20];
        new Random(7).nextBytes(body);
        HttpServer server = JnetNetwork.of(b).call(() -> {
            HttpServer s = HttpServer.create(new InetSocketAddress("10.9.0.2", 8080), 0);
            s.createContext("/hello", ex -> {
                byte[] msg = ("hello from " + ex.getLocalAddress().getAddress().getHostAddress()
                        + " to " + ex.getRemoteAddress().getAddress().getHostAddress()).getBytes();
                ex.sendResponseHeaders(200, msg.length);
                try (OutputStream o = ex.getResponseBody()) { o.write(msg); }
            });
            s.createContext("/blob", ex -> {
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream o = ex.getResponseBody()) { o.write(body); }
            });
            s.createContext("/sha256", ex -> {
                MessageDigest md = sha256();
                try (InputStream in = ex.getRequestBody()) {
                    byte[] buf = new byte[65536];
                    for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
                }
                byte[] hex = HexFormat.of().formatHex(md.digest()).getBytes();
                ex.sendResponseHeaders(200, hex.length);
                try (OutputStream o = ex.getResponseBody()) { o.write(hex); }
            });
            s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            s.start();
            return s;
        });
        JnetNetwork.of(a).call(() -> {
            try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://10.9.0.2:8080/hello")).build(),
                        HttpResponse.BodyHandlers.ofString());
                System.out.println("hello " + r.statusCode() + " " + r.body());
                HttpResponse<byte[]> blob = client.send(HttpRequest.newBuilder(URI.create("http://10.9.0.2:8080/blob")).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                System.out.println("download " + blob.statusCode() + " " + (HexFormat.of().formatHex(sha256().digest(blob.body()))
                        .equals(HexFormat.of().formatHex(sha256().digest(body))) ? "sha256-ok" : "sha256-mismatch"));
                HttpResponse<String> up = client.send(HttpRequest.newBuilder(URI.create("http://10.9.0.2:8080/sha256"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
                System.out.println("upload " + up.statusCode() + " "
                        + (up.body().equals(HexFormat.of().formatHex(sha256().digest(body))) ? "sha256-ok" : "sha256-mismatch"));
            }
            return null;
        });
        server.stop(0);
        a.close();
        b.close();
        System.out.println("internal-errors " + (a.internalErrors() + b.internalErrors()));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
