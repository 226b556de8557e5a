package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.dns.FakeDnsServer.Reply;
import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Dns;
import io.jnet.wire.DnsMessage;
import io.jnet.wire.DnsMessage.ResourceRecord;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stub resolver against DNS servers the test plays in another jnet namespace (10.0.0.2 and 10.0.0.3 on a veth
 * link; the resolver at 10.0.0.1): answers, CNAME chains, NXDOMAIN, the search list, replies that must be ignored,
 * SERVFAIL and silence moving on to the next server, TC and the retry over TCP, PTR. Waits run on the client
 * namespace's clock; the tests of silence use a {@link VirtualClock} and advance it, so they take no real seconds.
 */
@Timeout(60)
class DnsResolverTest {
    private final List<AutoCloseable> closeLater = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeLater.size() - 1; i >= 0; i--) closeLater.get(i).close();
    }

    private NetNamespace[] link(VirtualClock clientClock) {
        NetNamespace c = clientClock == null ? NetNamespace.create("dns-client") : NetNamespace.create("dns-client", clientClock);
        NetNamespace s = NetNamespace.create("dns-servers");
        closeLater.add(c);
        closeLater.add(s);
        VethPair p = VethPair.create("veth0", "veth1");
        c.attach(p.a());
        s.attach(p.b());
        c.addAddress("veth0", "10.0.0.1/24");
        s.addAddress("veth1", "10.0.0.2/24");
        s.addAddress("veth1", "10.0.0.3/24");
        return new NetNamespace[] {c, s};
    }

    private FakeDnsServer server(NetNamespace ns, String address, Function<DnsMessage, List<Reply>> udp,
            Function<DnsMessage, DnsMessage> tcp) throws Exception {
        FakeDnsServer f = new FakeDnsServer(ns, address, udp, tcp);
        closeLater.add(f);
        return f;
    }

    static DnsMessage answer(DnsMessage q, int rcode, ResourceRecord... answers) {
        return new DnsMessage(q.id(), Dns.FLAG_QR | Dns.FLAG_RD | Dns.FLAG_RA | rcode, q.questions(), List.of(answers), List.of(), List.of());
    }

    static InetAddress ip(String s) { return InetAddress.ofLiteral(s); }

    /** A zone: www -> CNAME web -> CNAME host -> A 10.9.9.9 and 10.9.9.10; host.b.test -> 10.8.8.8; others NXDOMAIN. */
    static List<Reply> zone(DnsMessage q) {
        String name = q.questions().get(0).name();
        int type = q.questions().get(0).type();
        DnsMessage a;
        if (type == Dns.TYPE_A && Dns.sameName(name, "www.example.test")) {
            a = answer(q, Dns.RCODE_NOERROR, ResourceRecord.cname(name, 60, "web.example.test"),
                    ResourceRecord.cname("web.example.test", 60, "host.example.test"),
                    ResourceRecord.a("host.example.test", 60, ip("10.9.9.9")), ResourceRecord.a("host.example.test", 60, ip("10.9.9.10")),
                    ResourceRecord.a("unrelated.example.test", 60, ip("10.7.7.7")));
        } else if (type == Dns.TYPE_A && Dns.sameName(name, "host.b.test")) {
            a = answer(q, Dns.RCODE_NOERROR, ResourceRecord.a(name, 60, ip("10.8.8.8")));
        } else if (type == Dns.TYPE_A && Dns.sameName(name, "nodata.example.test")) {
            a = answer(q, Dns.RCODE_NOERROR);
        } else if (type == Dns.TYPE_PTR && Dns.sameName(name, "9.9.9.10.in-addr.arpa")) {
            a = answer(q, Dns.RCODE_NOERROR, ResourceRecord.ptr(name, 60, "host.example.test"));
        } else {
            a = answer(q, Dns.RCODE_NXDOMAIN);
        }
        return List.of(Reply.of(a));
    }

    @Test
    void answersWithACnameChainAndAPtr() throws Exception {
        NetNamespace[] n = link(null);
        FakeDnsServer srv = server(n[1], "10.0.0.2", DnsResolverTest::zone, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2"));
        assertThat(r.lookup("www.example.test")).containsExactly((Inet4Address) ip("10.9.9.9"), (Inet4Address) ip("10.9.9.10"));
        assertThat(r.lookup("WWW.Example.TEST.")).hasSize(2);
        assertThat(r.reverseLookup((Inet4Address) ip("10.9.9.9"))).isEqualTo("host.example.test");

        DnsMessage q1 = srv.udpQueries.get(0), q2 = srv.udpQueries.get(1);
        assertThat(q1.recursionDesired()).isTrue();
        assertThat(q1.isResponse()).isFalse();
        assertThat(q1.questions()).containsExactly(new DnsMessage.Question("www.example.test", Dns.TYPE_A, Dns.CLASS_IN));
        assertThat(q2.questions().get(0).name()).as("a trailing dot: the name as given, no search").isEqualTo("WWW.Example.TEST");
        assertThat(srv.udpQueries.get(2).questions()).containsExactly(new DnsMessage.Question("9.9.9.10.in-addr.arpa", Dns.TYPE_PTR, Dns.CLASS_IN));
        assertThat(srv.udpQueries.stream().map(DnsMessage::id).distinct()).as("random IDs").hasSize(3);
        assertThat(r.statistics().queries()).isEqualTo(3);
    }

    @Test
    void nxdomainAndNoDataAreUnknownHostsSayingWhich() throws Exception {
        NetNamespace[] n = link(null);
        server(n[1], "10.0.0.2", DnsResolverTest::zone, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2"));
        UnknownHostException nx = catchThrowableOfType(UnknownHostException.class, () -> r.lookup("nosuch.example.test"));
        assertThat(nx).hasMessage("nosuch.example.test: not found: nosuch.example.test (NXDOMAIN from 10.0.0.2)");
        UnknownHostException nodata = catchThrowableOfType(UnknownHostException.class, () -> r.lookup("nodata.example.test"));
        assertThat(nodata).hasMessage("nodata.example.test: no IPv4 address: nodata.example.test (no IPv4 address)");
        UnknownHostException noPtr = catchThrowableOfType(UnknownHostException.class, () -> r.reverseLookup((Inet4Address) ip("10.1.2.3")));
        assertThat(noPtr).hasMessageContaining("3.2.1.10.in-addr.arpa (NXDOMAIN from 10.0.0.2)");
        UnknownHostException tooLong = catchThrowableOfType(UnknownHostException.class, () -> r.lookup("x".repeat(64) + ".test."));
        assertThat(tooLong).hasMessageContaining("cannot be asked for").hasMessageContaining("longer than 63");
        UnknownHostException none = catchThrowableOfType(UnknownHostException.class,
                () -> new DnsResolver(n[0], ResolvConf.EMPTY).lookup("www.example.test"));
        assertThat(none).hasMessageContaining("no name server configured");
    }

    @Test
    void theSearchListAndNdotsPickTheNamesAskedFor() throws Exception {
        NetNamespace[] n = link(null);
        FakeDnsServer srv = server(n[1], "10.0.0.2", DnsResolverTest::zone, null);
        ResolvConf conf = ResolvConf.ofNameservers("10.0.0.2").withSearch("a.test", "b.test");
        DnsResolver r = new DnsResolver(n[0], conf);
        // no dot, ndots 1: the search list first, then the name as it is
        assertThat(r.lookup("host")).containsExactly((Inet4Address) ip("10.8.8.8"));
        assertThat(names(srv)).containsExactly("host.a.test", "host.b.test");
        srv.udpQueries.clear();
        UnknownHostException e = catchThrowableOfType(UnknownHostException.class, () -> r.lookup("nosuch"));
        assertThat(names(srv)).containsExactly("nosuch.a.test", "nosuch.b.test", "nosuch");
        assertThat(e).hasMessageContaining("nosuch.a.test (NXDOMAIN from 10.0.0.2), nosuch.b.test (NXDOMAIN");
        // one dot, ndots 1: the name as it is first
        srv.udpQueries.clear();
        assertThat(r.lookup("www.example.test")).hasSize(2);
        assertThat(names(srv)).containsExactly("www.example.test");
        // ndots 3: a name with two dots goes through the search list first
        assertThat(DnsResolver.candidates("www.example.test", conf.withNdots(3)))
                .containsExactly("www.example.test.a.test", "www.example.test.b.test", "www.example.test");
        assertThat(DnsResolver.candidates("host.", conf)).containsExactly("host");
    }

    private static List<String> names(FakeDnsServer srv) {
        return srv.udpQueries.stream().map(q -> q.questions().get(0).name()).toList();
    }

    @Test
    void repliesFromStrangersWithOtherIdsOrQuestionsOrBrokenBytesAreIgnoredAndCounted() throws Exception {
        NetNamespace[] n = link(null);
        server(n[1], "10.0.0.2", q -> {
            DnsMessage good = answer(q, Dns.RCODE_NOERROR, ResourceRecord.a(q.questions().get(0).name(), 60, ip("10.9.9.9")));
            DnsMessage wrongId = new DnsMessage((q.id() + 1) & 0xFFFF, good.flags(), good.questions(), good.answers(), List.of(), List.of());
            DnsMessage wrongQuestion = new DnsMessage(q.id(), good.flags(),
                    List.of(new DnsMessage.Question("other.example.test", Dns.TYPE_A, Dns.CLASS_IN)), good.answers(), List.of(), List.of());
            byte[] broken = good.encode();
            broken[12] = (byte) 0xC0; // the question's name becomes a pointer to itself
            broken[13] = 12;
            return List.of(new Reply(good.encode(), true), Reply.of(wrongId), Reply.of(wrongQuestion),
                    new Reply(broken, false), new Reply(new byte[5], false), Reply.of(good));
        }, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2"));
        assertThat(r.lookup("www.example.test")).containsExactly((Inet4Address) ip("10.9.9.9"));
        DnsResolver.Statistics st = r.statistics();
        assertThat(st.mismatchedReplies()).isEqualTo(3);
        assertThat(st.malformedReplies()).isEqualTo(2);
        assertThat(n[0].internalErrors()).isZero();
    }

    @Test
    void servfailMovesOnToTheNextServer() throws Exception {
        NetNamespace[] n = link(null);
        FakeDnsServer failing = server(n[1], "10.0.0.2", q -> List.of(Reply.of(answer(q, Dns.RCODE_SERVFAIL))), null);
        FakeDnsServer good = server(n[1], "10.0.0.3", DnsResolverTest::zone, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2", "10.0.0.3"));
        assertThat(r.lookup("www.example.test")).hasSize(2);
        assertThat(failing.udpQueries).hasSize(1);
        assertThat(good.udpQueries).hasSize(1);
        assertThat(r.statistics().serverFailures()).isEqualTo(1);

        // every server failing, every attempt: an UnknownHostException naming SERVFAIL
        DnsResolver onlyFailing = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2").withAttempts(3));
        UnknownHostException e = catchThrowableOfType(UnknownHostException.class, () -> onlyFailing.lookup("www.example.test"));
        assertThat(e).hasMessageContaining("SERVFAIL from 10.0.0.2 after 3 attempts of 5 s per server");
        assertThat(failing.udpQueries).hasSize(4);
    }

    @Test
    void rotateStartsEachQueryAtTheNextServer() throws Exception {
        NetNamespace[] n = link(null);
        FakeDnsServer s1 = server(n[1], "10.0.0.2", DnsResolverTest::zone, null);
        FakeDnsServer s2 = server(n[1], "10.0.0.3", DnsResolverTest::zone, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2", "10.0.0.3").withRotate(true));
        for (int i = 0; i < 4; i++) r.lookup("www.example.test");
        assertThat(s1.udpQueries).hasSize(2);
        assertThat(s2.udpQueries).hasSize(2);
    }

    @Test
    void aTruncatedAnswerIsAskedAgainOverTcp() throws Exception {
        NetNamespace[] n = link(null);
        List<ResourceRecord> all = new ArrayList<>();
        for (int i = 1; i <= 40; i++) all.add(ResourceRecord.a("big.example.test", 60, ip("10.5.0." + i)));
        FakeDnsServer srv = server(n[1], "10.0.0.2",
                q -> List.of(Reply.of(new DnsMessage(q.id(), Dns.FLAG_QR | Dns.FLAG_RD | Dns.FLAG_TC, q.questions(),
                        all.subList(0, 10), List.of(), List.of()))),
                q -> new DnsMessage(q.id(), Dns.FLAG_QR | Dns.FLAG_RD, q.questions(), all, List.of(), List.of()));
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2"));
        assertThat(r.lookup("big.example.test")).hasSize(40);
        assertThat(srv.tcpQueries).hasSize(1);
        assertThat(srv.tcpQueries.get(0).questions()).isEqualTo(srv.udpQueries.get(0).questions());
        assertThat(r.statistics().tcpRetries()).isEqualTo(1);
    }

    @Test
    void aSilentServerTimesOutOnVirtualTimeThenTheNextAnswers() throws Exception {
        VirtualClock clock = new VirtualClock();
        NetNamespace[] n = link(clock);
        FakeDnsServer silent = server(n[1], "10.0.0.2", q -> List.of(), null);
        FakeDnsServer good = server(n[1], "10.0.0.3", DnsResolverTest::zone, null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.ofNameservers("10.0.0.2", "10.0.0.3"));
        long realStart = System.nanoTime();
        long virtualStart = clock.nanoTime();
        CompletableFuture<List<Inet4Address>> f = CompletableFuture.supplyAsync(() -> {
            try {
                return r.lookup("www.example.test");
            } catch (UnknownHostException e) {
                throw new RuntimeException(e);
            }
        });
        awaitQueries(silent, 1);
        assertThat(f).as("waits for the silent server until the clock moves").isNotDone();
        clock.advanceMillis(4_999);
        Thread.sleep(50);
        assertThat(f).isNotDone();
        assertThat(good.received.get()).isZero();
        clock.advanceMillis(1);
        assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(2);
        assertThat(clock.nanoTime() - virtualStart).isEqualTo(TimeUnit.SECONDS.toNanos(5));
        assertThat(System.nanoTime() - realStart).as("real time").isLessThan(TimeUnit.SECONDS.toNanos(4));
        assertThat(r.statistics().timeouts()).isEqualTo(1);
    }

    @Test
    void serversThatNeverAnswerGiveUpAfterAttemptsTimesServersTimeouts() throws Exception {
        VirtualClock clock = new VirtualClock();
        NetNamespace[] n = link(clock);
        FakeDnsServer s1 = server(n[1], "10.0.0.2", q -> List.of(), null);
        FakeDnsServer s2 = server(n[1], "10.0.0.3", q -> List.of(), null);
        DnsResolver r = new DnsResolver(n[0], ResolvConf.parse("nameserver 10.0.0.2\nnameserver 10.0.0.3\noptions timeout:1 attempts:2\n"));
        long realStart = System.nanoTime();
        CompletableFuture<Throwable> f = CompletableFuture.supplyAsync(() -> catchThrowableOfType(UnknownHostException.class,
                () -> r.lookup("www.example.test")));
        for (int sent = 1; sent <= 4; sent++) {
            awaitQueries(sent % 2 == 1 ? s1 : s2, (sent + 1) / 2);
            clock.advanceMillis(1000);
        }
        Throwable e = f.get(10, TimeUnit.SECONDS);
        assertThat(e).hasMessage("www.example.test: no answer: www.example.test (timed out (10.0.0.2); timed out (10.0.0.3)"
                + " after 2 attempts of 1 s per server)");
        assertThat(s1.received.get()).isEqualTo(2);
        assertThat(s2.received.get()).isEqualTo(2);
        assertThat(r.statistics().timeouts()).isEqualTo(4);
        assertThat(System.nanoTime() - realStart).as("real time").isLessThan(TimeUnit.SECONDS.toNanos(4));
    }

    private static void awaitQueries(FakeDnsServer s, int count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s.received.get() < count) {
            if (System.nanoTime() > end) throw new AssertionError("the server got " + s.received.get() + " queries, not " + count);
            Thread.sleep(2);
        }
        Thread.sleep(20); // let the resolver reach its wait
    }
}
