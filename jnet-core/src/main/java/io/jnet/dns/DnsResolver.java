package io.jnet.dns;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.TcpSocket;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Bytes;
import io.jnet.wire.Dns;
import io.jnet.wire.DnsMessage;
import io.jnet.wire.DnsMessage.ResourceRecord;
import io.jnet.wire.MalformedPacketException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * A stub resolver in the manner of glibc's res_search/res_query/res_send (resolv/res_query.c, res_send.c): it asks
 * the name servers of a {@link ResolvConf} over UDP sockets of a jnet namespace, applies the search list and the
 * ndots rule, and follows CNAME chains within an answer.
 *
 * <p>One query ({@link #query}, res_query): the question goes to each server in turn (from the next one each time
 * with {@code rotate}), for {@code attempts} rounds; each send waits {@code timeout} seconds for that server's
 * answer, on the namespace's clock (a namespace on a {@link io.jnet.stack.VirtualClock} times out when the clock is
 * advanced, without real waiting). glibc's send_dg waits {@code timeout << i} seconds for the server of index {@code i},
 * divided by the number of servers when {@code i > 0} (at least 1 s); this resolver waits the same {@code timeout}
 * at every send, as resolv.conf(5) describes the option. Each query uses a
 * fresh UDP socket on an ephemeral port and a random ID from the namespace's random source (RFC 5452 §9.2). A
 * datagram is taken as the answer only when it comes from the server's address and port 53, carries the query's
 * ID with QR set, and repeats its question (name case-insensitively, type, class), as glibc's res_queriesmatch
 * checks; any other datagram is counted ({@link Statistics#mismatchedReplies}, {@link Statistics#malformedReplies})
 * and the wait goes on. Unlike glibc, the socket is not connected, so the source is checked here and an ICMP port
 * unreachable does not cut the wait short.
 *
 * <p>Answers: TC set (RFC 1035 §4.2.1) makes the resolver ask the same server again over TCP, each message behind
 * a 2-byte length (RFC 1035 §4.2.2), as glibc does; SERVFAIL, NOTIMP and REFUSED move on to the next server, as a
 * timeout does; NOERROR and NXDOMAIN end the query.
 *
 * <p>A search ({@link #lookup}, res_search): a name ending with a dot is asked as it is, alone. Otherwise a name
 * with at least {@code ndots} dots is asked as it is first; then the name with each search domain appended; then,
 * when it was not asked first, the name as it is. NXDOMAIN, an answer without an address and SERVFAIL go on to the
 * next candidate; no answer at all (every server timed out) ends the search, as in glibc.
 *
 * <p>Errors are {@link UnknownHostException}s naming the cause: the name does not exist (NXDOMAIN), exists without
 * an IPv4 address, the servers failed (SERVFAIL, ...) or did not answer (timed out), no name server is configured,
 * the name cannot be sent (a label over 63 bytes, ...), the thread was interrupted (its interrupt status stays set).
 * Thread-safe: concurrent lookups use sockets of their own.
 */
public final class DnsResolver {
    /** Most CNAME records followed from the name asked for, within one answer. */
    static final int MAX_CNAME_CHAIN = 16;

    private final NetNamespace ns;
    private final Supplier<ResolvConf> conf;
    private final AtomicInteger rotation = new AtomicInteger();
    private final LongAdder queries = new LongAdder(), timeouts = new LongAdder(), mismatched = new LongAdder(),
            malformed = new LongAdder(), tcpRetries = new LongAdder(), serverFailures = new LongAdder(),
            sendErrors = new LongAdder();

    /**
     * A resolver for {@code ns} that reads {@code conf} at every lookup (so a changed configuration applies to the
     * next one).
     */
    public DnsResolver(NetNamespace ns, Supplier<ResolvConf> conf) {
        this.ns = Objects.requireNonNull(ns, "ns");
        this.conf = Objects.requireNonNull(conf, "conf");
    }

    /** A resolver for {@code ns} with a fixed configuration. */
    public DnsResolver(NetNamespace ns, ResolvConf conf) {
        this(ns, () -> conf);
        Objects.requireNonNull(conf, "conf");
    }

    /**
     * Counts since the resolver was made.
     *
     * @param queries UDP queries sent (each send to each server counts)
     * @param timeouts sends that got no answer in time
     * @param mismatchedReplies datagrams ignored for a wrong source, ID or question
     * @param malformedReplies datagrams ignored because they did not parse (too short, bad names, bad lengths)
     * @param tcpRetries answers with TC set, asked again over TCP
     * @param serverFailures answers with SERVFAIL, NOTIMP, REFUSED or another RCODE that moves on to the next server
     * @param sendErrors sends or TCP exchanges that failed locally or were refused (ENETUNREACH, ECONNREFUSED, ...)
     */
    public record Statistics(long queries, long timeouts, long mismatchedReplies, long malformedReplies,
            long tcpRetries, long serverFailures, long sendErrors) {}

    public Statistics statistics() {
        return new Statistics(queries.sum(), timeouts.sum(), mismatched.sum(), malformed.sum(), tcpRetries.sum(),
                serverFailures.sum(), sendErrors.sum());
    }

    /** The configuration in force now. */
    public ResolvConf conf() { return conf.get(); }

    /**
     * The IPv4 addresses of {@code name} (res_search for type A, CNAMEs followed), in the answer's order.
     *
     * @throws UnknownHostException naming the cause, see the class description
     */
    public List<Inet4Address> lookup(String name) throws UnknownHostException {
        ResolvConf c = conf.get();
        requireServers(c, name);
        List<String> candidates = candidates(name, c);
        List<String> outcomes = new ArrayList<>();
        boolean anyNoData = false;
        boolean unanswered = false;
        for (String candidate : candidates) {
            Result r = query(c, candidate, Dns.TYPE_A);
            if (r.response != null && r.response.rcode() == Dns.RCODE_NOERROR) {
                List<Inet4Address> found = addresses(r.response, candidate);
                if (!found.isEmpty()) return found;
                anyNoData = true;
                outcomes.add(candidate + " (no IPv4 address)");
                continue;
            }
            outcomes.add(candidate + " (" + r.describe() + ")");
            if (r.response == null && !r.serverFailed) { // no answer at all: glibc's TRY_AGAIN ends the search
                unanswered = true;
                break;
            }
        }
        String summary = String.join(", ", outcomes);
        String cause = anyNoData ? "no IPv4 address" : unanswered ? "no answer" : "not found";
        throw new UnknownHostException(name + ": " + cause + ": " + summary);
    }

    /**
     * The name of {@code address} from its PTR record ({@code d.c.b.a.in-addr.arpa}, RFC 1035 §3.5), CNAMEs
     * followed (RFC 2317).
     *
     * @throws UnknownHostException naming the cause, see the class description
     */
    public String reverseLookup(Inet4Address address) throws UnknownHostException {
        ResolvConf c = conf.get();
        String name = reverseName(address);
        requireServers(c, name);
        Result r = query(c, name, Dns.TYPE_PTR);
        if (r.response == null || r.response.rcode() != Dns.RCODE_NOERROR) {
            throw new UnknownHostException(address.getHostAddress() + ": no name: " + name + " (" + r.describe() + ")");
        }
        String owner = followCnames(r.response, name);
        for (ResourceRecord rr : r.response.answers()) {
            if (rr.type() == Dns.TYPE_PTR && rr.rrClass() == Dns.CLASS_IN && Dns.sameName(rr.name(), owner)) return rr.target();
        }
        throw new UnknownHostException(address.getHostAddress() + ": no name: " + name + " has no PTR record");
    }

    /** {@code 4.3.2.1.in-addr.arpa} for 1.2.3.4. */
    public static String reverseName(Inet4Address address) {
        byte[] a = address.getAddress();
        return (a[3] & 0xFF) + "." + (a[2] & 0xFF) + "." + (a[1] & 0xFF) + "." + (a[0] & 0xFF) + ".in-addr.arpa";
    }

    /**
     * res_query: asks for {@code name} exactly as given (no search list) and returns the response, whatever its
     * RCODE.
     *
     * @param type the QTYPE, e.g. {@link Dns#TYPE_A}
     * @throws UnknownHostException when no server gave an answer (timeouts, failures), naming the cause
     */
    public DnsMessage query(String name, int type) throws UnknownHostException {
        ResolvConf c = conf.get();
        requireServers(c, name);
        Result r = query(c, name, type);
        if (r.response == null) throw new UnknownHostException(name + ": " + r.describe());
        return r.response;
    }

    private static void requireServers(ResolvConf c, String name) throws UnknownHostException {
        if (c.nameservers().isEmpty()) throw new UnknownHostException(name + ": no name server configured (resolv.conf has no nameserver)");
    }

    /** The names res_search tries for {@code name}, in order. */
    static List<String> candidates(String name, ResolvConf c) {
        if (name.endsWith(".")) return List.of(name.substring(0, name.length() - 1));
        int dots = 0;
        for (int i = 0; i < name.length(); i++) if (name.charAt(i) == '.') dots++;
        List<String> out = new ArrayList<>();
        boolean asIsFirst = dots >= c.ndots();
        if (asIsFirst) out.add(name);
        for (String domain : c.search()) {
            if (domain.equals(".")) continue;
            String candidate = name + "." + domain;
            if (!out.contains(candidate)) out.add(candidate);
        }
        if (!asIsFirst) out.add(name);
        return out;
    }

    /** The A addresses of {@code name} in {@code response}, after the CNAME chain from it. */
    static List<Inet4Address> addresses(DnsMessage response, String name) {
        String owner = followCnames(response, name);
        List<Inet4Address> out = new ArrayList<>();
        for (ResourceRecord rr : response.answers()) {
            if (rr.type() == Dns.TYPE_A && rr.rrClass() == Dns.CLASS_IN && Dns.sameName(rr.name(), owner)
                    && !out.contains(rr.address())) {
                out.add((Inet4Address) rr.address());
            }
        }
        return out;
    }

    /** The end of the CNAME chain from {@code name} within the answer section (at most {@link #MAX_CNAME_CHAIN} steps). */
    static String followCnames(DnsMessage response, String name) {
        String owner = name;
        for (int hop = 0; hop < MAX_CNAME_CHAIN; hop++) {
            String next = null;
            for (ResourceRecord rr : response.answers()) {
                if (rr.type() == Dns.TYPE_CNAME && rr.rrClass() == Dns.CLASS_IN && Dns.sameName(rr.name(), owner)) {
                    next = rr.target();
                    break;
                }
            }
            if (next == null) break;
            owner = next;
        }
        return owner;
    }

    /** What one res_query gave: a response (NOERROR or NXDOMAIN), or why there is none. */
    private record Result(DnsMessage response, InetAddress server, boolean serverFailed, String failure) {
        String describe() {
            if (response != null) return Dns.rcodeName(response.rcode()) + " from " + server.getHostAddress();
            return failure;
        }
    }

    private Result query(ResolvConf c, String name, int type) throws UnknownHostException {
        DnsMessage q;
        try {
            q = DnsMessage.query(ns.randomInt(0x10000), name, type);
        } catch (IllegalArgumentException e) {
            throw new UnknownHostException(name + ": cannot be asked for: " + e.getMessage());
        }
        List<Inet4Address> servers = c.nameservers();
        int n = servers.size();
        int first = c.rotate() ? Math.floorMod(rotation.getAndIncrement(), n) : 0;
        long timeoutNanos = c.timeout().toNanos();
        List<String> failures = new ArrayList<>();
        boolean anyServerFailure = false;
        for (int attempt = 0; attempt < c.attempts(); attempt++) {
            for (int k = 0; k < n; k++) {
                Inet4Address server = servers.get((first + k) % n);
                // a new ID for every send, so that a late answer to an earlier send is not taken for this one
                DnsMessage query = attempt == 0 && k == 0 ? q : new DnsMessage(ns.randomInt(0x10000), q.flags(), q.questions(), List.of(), List.of(), List.of());
                Exchange e;
                try {
                    e = exchangeUdp(server, query, timeoutNanos);
                    if (e.response != null && e.response.isTruncated()) {
                        tcpRetries.increment();
                        e = exchangeTcp(server, query, timeoutNanos);
                    }
                } catch (InterruptedIOException ie) {
                    throw new UnknownHostException(name + ": interrupted while waiting for " + server.getHostAddress());
                }
                if (e.response != null) {
                    int rcode = e.response.rcode();
                    if (rcode == Dns.RCODE_NOERROR || rcode == Dns.RCODE_NXDOMAIN) {
                        return new Result(e.response, server, false, null);
                    }
                    serverFailures.increment();
                    anyServerFailure = true;
                    addOnce(failures, Dns.rcodeName(rcode) + " from " + server.getHostAddress());
                } else {
                    addOnce(failures, e.failure + " (" + server.getHostAddress() + ")");
                }
            }
        }
        String why = String.join("; ", failures) + " after " + c.attempts() + (c.attempts() == 1 ? " attempt" : " attempts")
                + " of " + c.timeoutSeconds() + " s per server";
        return new Result(null, null, anyServerFailure, why);
    }

    private static void addOnce(List<String> list, String s) {
        if (!list.contains(s)) list.add(s);
    }

    /** One send's outcome: a matching response, or why none came. */
    private record Exchange(DnsMessage response, String failure) {}

    private Exchange exchangeUdp(Inet4Address server, DnsMessage query, long timeoutNanos) throws InterruptedIOException {
        byte[] out = query.encode();
        byte[] in = new byte[Dns.MAX_UDP_LENGTH + 1];
        InetSocketAddress to = new InetSocketAddress(server, Dns.PORT);
        UdpSocket s;
        try {
            s = ns.openUdpSocket();
        } catch (RuntimeException e) {
            sendErrors.increment();
            return new Exchange(null, "cannot open a UDP socket: " + e.getMessage());
        }
        try (s; ClockWait wait = new ClockWait(ns, s)) {
            s.setBlocking(false);
            s.bind(new InetSocketAddress(0));
            long deadline = ns.clock().nanoTime() + timeoutNanos;
            s.send(out, 0, out.length, to);
            queries.increment();
            while (true) {
                UdpSocket.Datagram d = s.receive(in, 0, in.length);
                if (d == null) {
                    if (!wait.await(deadline)) {
                        timeouts.increment();
                        return new Exchange(null, "timed out");
                    }
                    continue;
                }
                if (!d.sender().equals(to)) {
                    mismatched.increment();
                    continue;
                }
                DnsMessage r = match(query, in, d.length(), d.truncated());
                if (r != null) return new Exchange(r, null);
            }
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            sendErrors.increment();
            return new Exchange(null, (e instanceof ErrnoException ee ? ee.getMessage() : e.toString()));
        }
    }

    /** The parsed response when {@code len} bytes answer {@code query}; null (counted) when they do not. */
    private DnsMessage match(DnsMessage query, byte[] b, int len, boolean cut) {
        if (cut || len < Dns.HEADER_LENGTH) {
            malformed.increment();
            return null;
        }
        if (Dns.id(b, 0) != query.id() || !Dns.isResponse(b, 0)) {
            mismatched.increment();
            return null;
        }
        DnsMessage r;
        try {
            r = DnsMessage.parse(b, 0, len);
        } catch (MalformedPacketException e) {
            malformed.increment();
            return null;
        }
        if (r.questions().size() != 1 || !r.questions().get(0).matches(query.questions().get(0))) {
            mismatched.increment();
            return null;
        }
        return r;
    }

    private Exchange exchangeTcp(Inet4Address server, DnsMessage query, long timeoutNanos) throws InterruptedIOException {
        byte[] q = query.encode();
        byte[] out = new byte[2 + q.length];
        Bytes.put16(out, 0, q.length);
        System.arraycopy(q, 0, out, 2, q.length);
        TcpSocket s;
        try {
            s = ns.openTcpSocket();
        } catch (RuntimeException e) {
            sendErrors.increment();
            return new Exchange(null, "cannot open a TCP socket: " + e.getMessage());
        }
        long deadline = ns.clock().nanoTime() + timeoutNanos;
        try (s; ClockWait wait = new ClockWait(ns, s)) {
            s.setBlocking(false);
            try {
                s.connect(new InetSocketAddress(server, Dns.PORT));
            } catch (ErrnoException e) {
                if (e.errno() != Errno.EINPROGRESS) throw e;
            }
            while (!s.finishConnect()) {
                if (!wait.await(deadline)) return tcpTimeout("connecting");
            }
            int sent = 0;
            while (sent < out.length) {
                int w = s.write(out, sent, out.length - sent);
                sent += w;
                if (w == 0 && !wait.await(deadline)) return tcpTimeout("sending");
            }
            byte[] lenBytes = new byte[2];
            if (!readFully(s, wait, lenBytes, deadline)) return tcpTimeout("reading");
            int len = Bytes.u16(lenBytes, 0);
            byte[] in = new byte[len];
            if (!readFully(s, wait, in, deadline)) return tcpTimeout("reading");
            DnsMessage r = match(query, in, len, false);
            if (r == null) return new Exchange(null, "a TCP answer that does not match the query");
            return new Exchange(r, null);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            sendErrors.increment();
            return new Exchange(null, "over TCP: " + e.getMessage());
        }
    }

    private Exchange tcpTimeout(String what) {
        timeouts.increment();
        return new Exchange(null, "timed out " + what + " over TCP");
    }

    /** Reads {@code b.length} bytes; false on the deadline; an IOException at end of stream. */
    private static boolean readFully(TcpSocket s, ClockWait wait, byte[] b, long deadline) throws IOException {
        int got = 0;
        while (got < b.length) {
            int r = s.read(b, got, b.length - got);
            if (r < 0) throw new IOException("the server closed the connection after " + got + " of " + b.length + " bytes");
            got += r;
            if (r == 0 && got < b.length && !wait.await(deadline)) return false;
        }
        return true;
    }
}
