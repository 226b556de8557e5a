package io.jnet.nio;

import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * The child JVM of {@link JvmWideSocketsTest}: installs jnet's JVM-wide factories ({@link JnetSockets#install()}),
 * then runs unchanged java.net code: {@code new Socket(host, port)}, {@code new ServerSocket(port)} and
 * {@code HttpURLConnection} GET and POST against an HTTP responder written with a plain ServerSocket. Namespace
 * "host" (loopback 127.0.0.1, veth0 10.0.0.1/24) is the JVM's default network; namespace "peer" (veth0
 * 10.0.0.2/24) is used through {@link JnetNetwork#run}. It proves that nothing falls back to the kernel: a
 * socket made with no network fails, and /proc/self/fd holds no {@code socket:[...]} while jnet sockets are open.
 * Prints one line per check; exits 0 when every check held, 1 otherwise (with the failure on standard error).
 * With the argument {@code socket} or {@code serversocket} it sets another factory there first and prints how
 * {@link JnetSockets#install()} refuses.
 */
public final class JvmWideSocketsChild {
    private JvmWideSocketsChild() {}

    public static void main(String[] args) {
        int status = 0;
        try {
            if (args.length > 0) installOverAForeignFactory(args[0]);
            else run();
            System.out.println("OK");
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status); // the namespaces' timer threads are not daemons
    }

    private static void run() throws Exception {
        System.out.println("kernel sockets at start: " + kernelSockets());
        JnetSockets.install();
        JnetSockets.install(); // idempotent
        check(JnetSockets.isInstalled(), "installed");

        // no scope and no default network: a clear SocketException, never the kernel
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 8080));
            throw new AssertionError("a Socket connected with no network");
        } catch (SocketException e) {
            System.out.println("Socket without a network: " + e.getMessage());
        }
        try (ServerSocket s = new ServerSocket(8080)) {
            throw new AssertionError("a ServerSocket bound with no network: " + s);
        } catch (SocketException e) {
            System.out.println("ServerSocket without a network: " + e.getMessage());
        }
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:8080/").toURL().openConnection();
            c.getResponseCode();
            throw new AssertionError("HttpURLConnection connected with no network");
        } catch (SocketException e) {
            System.out.println("HttpURLConnection without a network: " + e.getMessage());
        }

        try (NetNamespace host = NetNamespace.create("host"); NetNamespace peer = NetNamespace.create("peer")) {
            Topology.link(host, peer, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            JnetNetwork.setDefault(JnetNetwork.of(host));

            ServerSocket http = new ServerSocket(8080); // the default network: host
            startHttpResponder(http);
            ServerSocket[] peerServers = new ServerSocket[2];
            JnetNetwork.of(peer).call(() -> {
                peerServers[0] = new ServerSocket(7); // the accept thread inherits the scope, not needed for accept
                peerServers[1] = new ServerSocket(80);
                startEcho(peerServers[0]);
                startHttpResponder(peerServers[1]);
                return null;
            });

            // new Socket(host, port) over loopback and over the veth pair
            try (Socket echo = new Socket("10.0.0.2", 7)) {
                check(echo.getLocalAddress().getHostAddress().equals("10.0.0.1"), "local address " + echo.getLocalAddress());
                echo.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                String back = new String(echo.getInputStream().readNBytes(4), StandardCharsets.US_ASCII);
                check(back.equals("ping"), "echo " + back);
                System.out.println("echo over veth from " + echo.getLocalSocketAddress() + " to "
                        + echo.getRemoteSocketAddress() + ": " + back);

                // HttpURLConnection GET and POST on loopback (default network) while the echo socket is open
                String get = httpGet("http://127.0.0.1:8080/hello");
                check(get.equals("GET /hello on /127.0.0.1:8080"), "GET " + get);
                System.out.println("HttpURLConnection GET 127.0.0.1: " + get);
                byte[] body = new byte[200_000];
                new Random(7).nextBytes(body);
                String post = httpPost("http://127.0.0.1:8080/upload", body);
                String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
                check(post.equals("POST /upload 200000 bytes sha256=" + sha), "POST " + post);
                System.out.println("HttpURLConnection POST 127.0.0.1: 200000 bytes, SHA-256 matches");

                // GET across the veth pair, to the responder the peer namespace runs
                String peerGet = httpGet("http://10.0.0.2/index");
                check(peerGet.equals("GET /index on /10.0.0.2:80"), "peer GET " + peerGet);
                System.out.println("HttpURLConnection GET 10.0.0.2 over veth: " + peerGet);

                // a client in the peer's scope reaches the host's responder the other way
                String fromPeer = JnetNetwork.of(peer).call(() -> httpGet("http://10.0.0.1:8080/back"));
                check(fromPeer.equals("GET /back on /10.0.0.1:8080"), "GET from peer " + fromPeer);
                System.out.println("HttpURLConnection GET from the peer's scope: " + fromPeer);

                List<String> during = kernelSockets();
                System.out.println("kernel sockets while jnet sockets are open: " + during);
                check(during.isEmpty(), "kernel sockets " + during);
            }
            http.close();
            for (ServerSocket s : peerServers) s.close();
            JnetNetwork.setDefault(null);
        }
    }

    @SuppressWarnings("deprecation") // the JVM-wide factory setters
    private static void installOverAForeignFactory(String where) throws IOException {
        java.net.SocketImplFactory foreign = () -> new JnetSocketImpl(false);
        if (where.equals("socket")) Socket.setSocketImplFactory(foreign);
        else ServerSocket.setSocketFactory(foreign);
        try {
            JnetSockets.install();
            throw new AssertionError("installed over another factory");
        } catch (SocketException e) {
            System.out.println("install over a foreign " + where + " factory: " + e.getMessage());
        }
        check(!JnetSockets.isInstalled(), "not installed");
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError("check failed: " + what);
    }

    /** The targets of /proc/self/fd links that are sockets ({@code socket:[inode]}). */
    static List<String> kernelSockets() throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) out.add(fd.getFileName() + " -> " + target);
                } catch (IOException gone) {
                    // the descriptor of the directory listing itself, closed by now
                }
            }
        }
        return out;
    }

    private static String httpGet(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(10_000);
        check(c.getResponseCode() == 200, "status " + c.getResponseCode());
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String httpPost(String url, byte[] body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setConnectTimeout(10_000);
        c.setReadTimeout(10_000);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        check(c.getResponseCode() == 200, "status " + c.getResponseCode());
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void startEcho(ServerSocket server) {
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s) {
                            s.getInputStream().transferTo(s.getOutputStream());
                        } catch (IOException e) {
                            // an echo still running when the run ends and closes the namespaces is no failure
                            if (!server.isClosed()) e.printStackTrace();
                        }
                    });
                } catch (IOException e) {
                    if (!server.isClosed()) e.printStackTrace();
                }
            }
        });
    }

    /**
     * A minimal HTTP/1.1 responder on a plain ServerSocket: one request per connection (Connection: close);
     * a GET gets "GET path on local-address", a POST "POST path N bytes sha256=HEX" of the body it read.
     */
    private static void startHttpResponder(ServerSocket server) {
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> respond(s));
                } catch (IOException e) {
                    if (!server.isClosed()) e.printStackTrace();
                }
            }
        });
    }

    private static void respond(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            String requestLine = line(in);
            int length = 0;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                    length = Integer.parseInt(h.substring(colon + 1).trim());
                }
            }
            String[] parts = requestLine.split(" ");
            String body;
            if (parts[0].equals("POST")) {
                byte[] data = in.readNBytes(length);
                String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
                body = "POST " + parts[1] + " " + data.length + " bytes sha256=" + sha;
            } else {
                body = parts[0] + " " + parts[1] + " on " + s.getLocalSocketAddress();
            }
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + b.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(b);
            out.flush();
        } catch (Exception e) {
            e.printStackTrace();
        }
    }

    /** One CRLF-terminated header line, without the CRLF (ISO-8859-1, as HTTP/1.1 headers). */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') b.write(c);
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
