package io.jnet.app;

import io.jnet.nio.JnetNetwork;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code jnet fetch}'s download: one {@code GET} by the JDK's {@link HttpClient} (HTTP/1.1, no redirects followed,
 * no proxy) whose connection is a jnet TCP socket in one namespace; the body is hashed with SHA-256 and counted
 * while it streams in, and written to a sink when the status is 2xx. The JVM-wide SelectorProvider must be jnet's
 * (see {@link JdkHttp}). Hosts must be IPv4 literals (jnet has no IPv6 and the fetch resolves no names).
 *
 * <p>Errors: {@link IllegalArgumentException} for a URL that is not {@code http://HOST[:PORT]/...};
 * {@link UnknownHostException} for a host that is not an IPv4 literal; the stack's {@link ErrnoException} when
 * connecting fails (ECONNREFUSED, EHOSTUNREACH, ENETUNREACH; ETIMEDOUT also when the connect timeout passes);
 * {@link SocketTimeoutException} when the whole exchange takes longer than the timeout; the client's IOException
 * for anything else (a malformed response, a connection closed early).
 */
public final class JnetFetch {

    static {
        // The client retries a connect that failed with a ConnectException on the same channel, which a failed
        // connect has closed (the retry is meant for a Windows quirk): the ClosedChannelException of the retry then
        // hides the stack's errno (ECONNREFUSED, ...). The property is read once, when the client is first used.
        if (System.getProperty("jdk.httpclient.disableRetryConnect") == null) {
            System.setProperty("jdk.httpclient.disableRetryConnect", "true");
        }
    }

    private final NetNamespace ns;
    private final Duration connectTimeout;
    private final Duration timeout;

    /**
     * @param ns where to open the connection
     * @param connectTimeout limit for the TCP handshake, or null for the stack's SYN retries
     * @param timeout limit for the whole exchange (connect, request, response head and body), or null for none
     */
    public JnetFetch(NetNamespace ns, Duration connectTimeout, Duration timeout) {
        this.ns = Objects.requireNonNull(ns, "ns");
        this.connectTimeout = connectTimeout;
        this.timeout = timeout;
    }

    /**
     * The URL {@code jnet fetch} can GET: {@code http://HOST[:PORT][/PATH][?QUERY]}, no user info, no fragment.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static URI parseUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("bad URL '" + url + "': " + e.getReason());
        }
        if (uri.getScheme() == null || !uri.getScheme().toLowerCase(Locale.ROOT).equals("http")) {
            throw new IllegalArgumentException("bad URL '" + url + "': only http:// URLs are supported");
        }
        if (uri.getRawAuthority() == null || uri.getHost() == null) {
            throw new IllegalArgumentException("bad URL '" + url + "': no host");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("bad URL '" + url + "': user info is not supported");
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("bad URL '" + url + "': a fragment is not sent to the server");
        }
        return uri;
    }

    /** The URL's host without the brackets of an IPv6 literal. */
    public static String host(URI uri) {
        String host = uri.getHost();
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * The hosts a jnet namespace can reach here: IPv4 literals in strict dotted-decimal (jnet has no IPv6, and the
     * fetch resolves no names).
     *
     * @throws UnknownHostException for a name or an IPv6 literal
     */
    public static InetAddress resolve(String host) throws UnknownHostException {
        if (host.indexOf(':') >= 0) {
            throw new UnknownHostException("'" + host + "' is an IPv6 address; jnet speaks IPv4 only");
        }
        String[] parts = host.split("\\.", -1);
        byte[] bytes = new byte[4];
        boolean ok = parts.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            String p = parts[i];
            ok = !p.isEmpty() && p.length() <= 3 && p.chars().allMatch(c -> c >= '0' && c <= '9')
                    && !(p.length() > 1 && p.charAt(0) == '0');
            if (ok) {
                int v = Integer.parseInt(p);
                ok = v <= 255;
                bytes[i] = (byte) v;
            }
        }
        if (!ok) throw new UnknownHostException("'" + host + "' is not an IPv4 address literal; jnet resolves no names");
        return InetAddress.getByAddress(host, bytes);
    }

    /**
     * GETs {@code url}; the body of a 2xx response is written to {@code sink} (not closed), every body is hashed
     * and counted. See the class comment for the errors.
     */
    public FetchResult fetch(String url, OutputStream sink) throws IOException {
        Objects.requireNonNull(sink, "sink");
        URI uri = parseUrl(url);
        resolve(host(uri));
        long start = System.nanoTime();
        return JdkHttp.on(ns, () -> exchange(url, uri, sink, start));
    }

    private FetchResult exchange(String url, URI uri, OutputStream sink, long start) throws IOException, InterruptedException {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).proxy(HttpClient.Builder.NO_PROXY);
        if (connectTimeout != null) builder.connectTimeout(connectTimeout);
        // the client opens its connection on a thread of its executor, and its own threads inherit no scope: each
        // task runs in the namespace's scope
        JnetNetwork network = JnetNetwork.of(ns);
        ExecutorService pool = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("jnet-fetch-", 0).factory());
        builder.executor(task -> pool.execute(() -> network.run(task)));
        HttpClient client = builder.build();
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).header("User-Agent", "jnet-fetch").GET().build();
            CompletableFuture<HttpResponse<Body>> response = client.sendAsync(request,
                    info -> new Digesting(info.statusCode() >= 200 && info.statusCode() < 300 ? sink : null));
            HttpResponse<Body> r;
            try {
                r = timeout == null ? response.get() : response.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                response.cancel(true);
                throw new SocketTimeoutException(url + ": no complete response within " + timeout);
            } catch (ExecutionException e) {
                throw failure(url, e.getCause());
            } catch (CancellationException e) {
                throw new IOException(url + ": cancelled", e);
            }
            long elapsed = System.nanoTime() - start;
            return new FetchResult(url, r.statusCode(), HttpStatus.reason(r.statusCode()), r.body().bytes(),
                    r.body().sha256(), elapsed);
        } finally {
            client.shutdownNow();
            pool.shutdownNow();
        }
    }

    /** The exception a failed exchange gives: the stack's errno for a failed connect, else the client's. */
    private IOException failure(String url, Throwable cause) {
        if (cause instanceof HttpConnectTimeoutException) {
            ErrnoException e = new ErrnoException(Errno.ETIMEDOUT, "connect within " + connectTimeout);
            e.initCause(cause);
            return e;
        }
        if (cause instanceof HttpTimeoutException) {
            SocketTimeoutException e = new SocketTimeoutException(url + ": no complete response within " + timeout);
            e.initCause(cause);
            return e;
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof ErrnoException errno) return errno;
        }
        if (cause instanceof IOException io) return io;
        return new IOException(cause);
    }

    /** A body as counted and hashed. */
    private record Body(long bytes, String sha256) {}

    /** Hashes and counts the body, writing it to a sink when there is one. */
    private static final class Digesting implements HttpResponse.BodySubscriber<Body> {
        private final OutputStream sink;
        private final MessageDigest digest = PatternBytes.newSha256();
        private final CompletableFuture<Body> result = new CompletableFuture<>();
        private final byte[] copy = new byte[64 * 1024];
        private Flow.Subscription subscription;
        private long bytes;

        Digesting(OutputStream sink) {
            this.sink = sink;
        }

        @Override
        public CompletionStage<Body> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            try {
                for (ByteBuffer b : buffers) {
                    while (b.hasRemaining()) {
                        int n = Math.min(b.remaining(), copy.length);
                        b.get(copy, 0, n);
                        digest.update(copy, 0, n);
                        if (sink != null) sink.write(copy, 0, n);
                        bytes += n;
                    }
                }
            } catch (IOException e) {
                subscription.cancel();
                result.completeExceptionally(e);
                return;
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            try {
                if (sink != null) sink.flush();
            } catch (IOException e) {
                result.completeExceptionally(e);
                return;
            }
            result.complete(new Body(bytes, HexFormat.of().formatHex(digest.digest())));
        }
    }
}
