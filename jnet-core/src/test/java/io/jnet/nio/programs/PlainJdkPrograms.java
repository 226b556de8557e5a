package io.jnet.nio.programs;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * Plain JDK network code, nothing of jnet in it: the JDK's HttpServer with HttpClient and HttpURLConnection as
 * clients, a ServerSocket with a Socket client, and a name looked up through InetAddress. Prints one line per
 * check; on jnet (agent or launcher) every socket is jnet's.
 */
public final class PlainJdkPrograms {
    private PlainJdkPrograms() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 8080), 0);
        server.createContext("/", ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            byte[] msg = (ex.getRequestMethod() + " " + ex.getRequestURI() + " " + in.length).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, msg.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(msg); }
        });
        server.start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/a"))
                    .POST(HttpRequest.BodyPublishers.ofString("xyz")).build(), HttpResponse.BodyHandlers.ofString());
            System.out.println("httpclient " + r.statusCode() + " " + r.body());
        }
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:8080/b").toURL().openConnection();
        try (InputStream in = c.getInputStream()) {
            System.out.println("urlconnection " + c.getResponseCode() + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        server.stop(0);
        try (ServerSocket ss = new ServerSocket(9090, 50, InetAddress.getByName("127.0.0.1"));
             Socket s = new Socket("127.0.0.1", 9090); Socket a = ss.accept()) {
            s.getOutputStream().write("ping".getBytes(StandardCharsets.UTF_8));
            byte[] b = a.getInputStream().readNBytes(4);
            System.out.println("socket " + new String(b, StandardCharsets.UTF_8) + " " + a.getInetAddress().getHostAddress());
        }
        System.out.println("lookup " + InetAddress.getByName(args.length > 0 ? args[0] : "localhost").getHostAddress());
    }
}
