package io.jnet.app;

import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The services of {@code jnet serve} in one jnet namespace, each listening on {@code address:port}: HTTP by the
 * JDK's own server ({@link HttpService}; the JVM-wide SelectorProvider must be jnet's, see {@link JdkHttp}), and
 * {@link EchoService} (RFC 862) and {@link DiscardService} (RFC 863) on jnet's sockets.
 *
 * <p>A port of 0 turns that service off. {@link #close()} stops all of them.
 */
public final class JnetServer implements AutoCloseable {

    /** Accept queue length of each listener (clamped by net.core.somaxconn). */
    static final int BACKLOG = 128;

    /**
     * The listening ports; 0 turns a service off.
     *
     * @param http HTTP (default 80)
     * @param echo echo (default 7)
     * @param discard discard (default 9)
     */
    public record Ports(int http, int echo, int discard) {
        public Ports {
            check("http", http);
            check("echo", echo);
            check("discard", discard);
        }

        /** 80, 7, 9. */
        public static Ports defaults() {
            return new Ports(HttpService.DEFAULT_PORT, EchoService.PORT, DiscardService.PORT);
        }

        private static void check(String what, int port) {
            if (port < 0 || port > 65535) throw new IllegalArgumentException(what + " port must be 0..65535: " + port);
        }
    }

    private final InetAddress address;
    private final Ports ports;
    private final HttpService http;
    private final EchoService echo;
    private final DiscardService discard;

    private JnetServer(InetAddress address, Ports ports, HttpService http, EchoService echo, DiscardService discard) {
        this.address = address;
        this.ports = ports;
        this.http = http;
        this.echo = echo;
        this.discard = discard;
    }

    /**
     * Binds and starts the services.
     *
     * @param ns where to listen
     * @param address the local address to bind (one of the namespace's, or 0.0.0.0 for all)
     * @throws IOException when a listener cannot bind (EADDRINUSE, EADDRNOTAVAIL); services already
     *     started are stopped again
     * @throws IllegalStateException when HTTP is on and the JVM-wide SelectorProvider is not jnet's
     */
    public static JnetServer start(NetNamespace ns, InetAddress address, Ports ports) throws IOException {
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(ports, "ports");
        List<AutoCloseable> started = new ArrayList<>();
        try {
            HttpService http = ports.http() == 0 ? null
                    : add(started, HttpService.start(ns, new InetSocketAddress(address, ports.http()), BACKLOG));
            EchoService echo = ports.echo() == 0 ? null
                    : add(started, EchoService.start(JnetStreams.listen(ns, new InetSocketAddress(address, ports.echo()), BACKLOG)));
            DiscardService discard = ports.discard() == 0 ? null
                    : add(started, DiscardService.start(JnetStreams.listen(ns, new InetSocketAddress(address, ports.discard()), BACKLOG)));
            return new JnetServer(address, ports, http, echo, discard);
        } catch (IOException | RuntimeException e) {
            for (AutoCloseable c : started.reversed()) {
                try {
                    c.close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static <T extends AutoCloseable> T add(List<AutoCloseable> started, T service) {
        started.add(service);
        return service;
    }

    /** The HTTP server, or null when off. */
    public HttpService http() { return http; }

    /** The echo service, or null when off. */
    public EchoService echo() { return echo; }

    /** The discard service, or null when off. */
    public DiscardService discard() { return discard; }

    /** The ports asked for. */
    public Ports ports() { return ports; }

    /** One line per running service, e.g. {@code "http     http://192.0.2.2:80/"}. */
    public List<String> describe() {
        String host = address.getHostAddress();
        List<String> lines = new ArrayList<>();
        if (http != null) {
            String base = "http://" + host + (ports.http() == 80 ? "" : ":" + ports.http());
            lines.add("http     " + base + "/   (GET /bytes/N: N pattern bytes; PUT/POST: SHA-256 of the body)");
        }
        if (echo != null) lines.add("echo     " + host + ":" + ports.echo() + "   (RFC 862)");
        if (discard != null) lines.add("discard  " + host + ":" + ports.discard() + "   (RFC 863)");
        return lines;
    }

    /** Stops every service and closes their connections. Idempotent. */
    @Override
    public void close() {
        if (http != null) http.close();
        if (echo != null) echo.close();
        if (discard != null) discard.close();
    }
}
