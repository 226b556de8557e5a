package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.dns.FakeDnsServer.Reply;
import io.jnet.link.VethPair;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Dns;
import io.jnet.wire.DnsMessage;
import io.jnet.wire.DnsMessage.ResourceRecord;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The resolver fed mutated answers over jnet UDP: for each query a server sends up to four mutations of the right
 * answer (bit flips, byte sets, cuts, compression pointers aimed anywhere, changed counts), then the right answer
 * itself, so that every lookup ends. The only allowed outcomes of a lookup are addresses or an
 * {@link UnknownHostException}; nothing is caught inside the namespaces, and the resolver's counters account for
 * the mutations it refused. Fixed seed.
 */
@Timeout(300)
class DnsResolverFuzzTest {

    @Test
    void mutatedAnswersEndInAnAnswerOrAnUnknownHost() throws Exception {
        run(1_500, 0x72657376L);
    }

    @Test
    @Tag("long")
    void hundredThousandLookups() throws Exception {
        run(100_000, 0x72657377L);
    }

    private static void run(int lookups, long seed) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (NetNamespace c = NetNamespace.create("fuzz-resolver"); NetNamespace s = NetNamespace.create("fuzz-dns")) {
            VethPair p = VethPair.create("veth0", "veth1");
            c.attach(p.a());
            s.attach(p.b());
            c.addAddress("veth0", "10.0.0.1/24");
            s.addAddress("veth1", "10.0.0.2/24");
            try (FakeDnsServer srv = new FakeDnsServer(s, "10.0.0.2", q -> replies(q, rnd), null)) {
                DnsResolver r = new DnsResolver(c, ResolvConf.ofNameservers("10.0.0.2"));
                int answered = 0, unknown = 0;
                for (int i = 0; i < lookups; i++) {
                    try {
                        assertThat(r.lookup("www.example.test")).isNotEmpty();
                        answered++;
                    } catch (UnknownHostException e) {
                        assertThat(e.getMessage()).startsWith("www.example.test: ");
                        unknown++;
                    }
                }
                DnsResolver.Statistics st = r.statistics();
                if (Boolean.getBoolean("jnet.fuzz.print")) System.out.println(answered + " answered, " + unknown + " unknown, " + st);
                assertThat(answered).isPositive();
                assertThat(st.malformedReplies()).as("refused as malformed").isPositive();
                assertThat(st.mismatchedReplies()).as("refused as not matching").isPositive();
                assertThat(answered + unknown).isEqualTo(lookups);
            }
            assertThat(c.internalErrors()).as("caught in the resolver's namespace: %s", c.lastInternalError()).isZero();
            assertThat(s.internalErrors()).isZero();
        }
    }

    private static List<Reply> replies(DnsMessage q, SplittableRandom shared) {
        SplittableRandom rnd;
        synchronized (shared) {
            rnd = shared.split();
        }
        DnsMessage good = new DnsMessage(q.id(), Dns.FLAG_QR | Dns.FLAG_RD | Dns.FLAG_RA, q.questions(),
                List.of(ResourceRecord.cname(q.questions().get(0).name(), 60, "host.example.test"),
                        ResourceRecord.a("host.example.test", 60, InetAddress.ofLiteral("10.9.9.9"))),
                List.of(), List.of());
        byte[] bytes = good.encode();
        List<Reply> out = new ArrayList<>();
        int bad = rnd.nextInt(5);
        for (int i = 0; i < bad; i++) out.add(new Reply(mutate(bytes, rnd), false));
        out.add(new Reply(bytes, false));
        return out;
    }

    private static byte[] mutate(byte[] t, SplittableRandom r) {
        byte[] b = t.clone();
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(5)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) r.nextInt(256);
                case 2 -> {
                    if (at + 1 < b.length) { int target = r.nextInt(b.length + 8); b[at] = (byte) (0xC0 | (target >>> 8)); b[at + 1] = (byte) target; }
                }
                case 3 -> { int k = 4 + 2 * r.nextInt(4); b[k] = 0; b[k + 1] = (byte) r.nextInt(8); }
                default -> b = java.util.Arrays.copyOf(b, r.nextInt(b.length));
            }
            if (b.length < 12) break;
        }
        return b;
    }
}
