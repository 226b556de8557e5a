package io.jnet.link.impair;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.icmp.IcmpProtocol;
import io.jnet.link.VethPair;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ipv4;
import org.junit.jupiter.api.Test;

/** The impairment device interposed on a namespace's veth, seen from the stacks on both ends. */
class ImpairedNamespaceTest {

    @Test
    void corruptedFramesAreDroppedByTheReceiversChecksums() {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            IcmpProtocol icmp = a.extension(IcmpProtocol.class);
            int dst = Ipv4.parseAddress("10.0.0.2");
            assertThat(icmp.sendEcho(dst, 1, 0, new byte[56])).isZero(); // resolves ARP before corrupting
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isEqualTo(1);

            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", ImpairmentConfig.parse("egress.corrupt=100%,seed=4"));
            assertThat(a.requireInterface("veth0").device()).isSameAs(d);
            for (int seq = 1; seq <= 50; seq++) assertThat(icmp.sendEcho(dst, 1, seq, new byte[56])).isZero();

            assertThat(d.counts(Direction.EGRESS).corrupted()).isEqualTo(50);
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isEqualTo(1);
            long rejected = b.mib().get(MibCounter.IpInHdrErrors) + b.mib().get(MibCounter.IpExtInTruncatedPkts)
                    + b.mib().get(MibCounter.IcmpInCsumErrors);
            assertThat(rejected).isEqualTo(50);
            assertThat(b.mib().get(MibCounter.IcmpInCsumErrors)).isPositive(); // most of a frame is ICMP
            assertThat(b.mib().get(MibCounter.IpExtInCsumErrors)).isPositive();
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
        }
    }

    @Test
    void ingressDelayFollowsTheNamespaceClock() {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", ImpairmentConfig.parse("ingress.delay=20ms,seed=1"));
            IcmpProtocol icmp = a.extension(IcmpProtocol.class);
            icmp.sendEcho(Ipv4.parseAddress("10.0.0.2"), 1, 1, new byte[56]);
            // the ARP reply is held on its way into a: nothing sent yet
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isZero();
            clock.advanceMillis(19);
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isZero();
            clock.advanceMillis(1);
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isEqualTo(1);
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isZero();
            clock.advanceMillis(20);
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isEqualTo(1);
            ImpairmentCounts in = d.counts(Direction.INGRESS);
            assertThat(in.frames()).isGreaterThanOrEqualTo(2); // ARP reply, echo reply (and any ARP probe from b)
            assertThat(in.delayed()).isEqualTo(in.frames());
            assertThat(d.events()).extracting(ImpairmentEvent::nanos).containsOnly(20_000_000L);
            a.close();
            assertThat(d.counts(Direction.INGRESS).held()).isZero();
        }
    }
}
