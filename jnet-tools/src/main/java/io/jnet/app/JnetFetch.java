package io.jnet.app;

import io.jnet.socket.SocketProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code jnet fetch}'s download: an {@link HttpFetcher} whose connections are jnet TCP sockets in one
 * namespace. Hosts must be IPv4 literals (jnet has no IPv6 and no resolver); others fail with an
 * {@link UnknownHostException}.
 */
public final class JnetFetch {

    private final HttpFetcher fetcher;

    /**
     * @param ns where to open the connection
     * @param connectTimeout limit for the TCP handshake, or null for the stack's SYN retries
     * @param timeout limit for the exchange once connected, or null for none
     */
    public JnetFetch(SocketProvider ns, Duration connectTimeout, Duration timeout) {
        Objects.requireNonNull(ns, "ns");
        this.fetcher = new HttpFetcher(JnetStreams.connector(ns, connectTimeout), JnetFetch::resolve, timeout);
    }

    /**
     * The hosts a jnet namespace can reach: IPv4 literals (jnet has no IPv6 and no resolver).
     *
     * @throws UnknownHostException for a name or an IPv6 literal
     */
    static InetAddress resolve(String host) throws UnknownHostException {
        if (host.indexOf(':') >= 0) {
            throw new UnknownHostException("'" + host + "' is an IPv6 address; jnet speaks IPv4 only");
        }
        try {
            return HostResolver.literalsOnly().resolve(host);
        } catch (UnknownHostException e) {
            throw new UnknownHostException("'" + host + "' is not an IPv4 address literal; jnet resolves no names");
        }
    }

    /**
     * GETs {@code url}; the body of a 2xx response is written to {@code sink} (not closed), every body is
     * hashed and counted. See {@link HttpFetcher#fetch(String, OutputStream)} for the errors.
     */
    public FetchResult fetch(String url, OutputStream sink) throws IOException {
        return fetcher.fetch(url, sink);
    }
}
