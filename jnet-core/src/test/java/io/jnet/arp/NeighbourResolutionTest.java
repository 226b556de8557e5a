package io.jnet.arp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.icmp.IcmpProtocol;
import io.jnet.link.VethPair;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ipv4;
import org.junit.jupiter.api.Test;

/** ARP over a veth pair on virtual time: queueing while resolving, replies, failures. */
class NeighbourResolutionTest {

    @Test
    void resolvesAndFlushesQueuedPackets() {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            IcmpProtocol icmp = a.extension(IcmpProtocol.class);
            assertThat(icmp.sendEcho(Ipv4.parseAddress("10.0.0.2"), 1, 1, new byte[56])).isZero();
            assertThat(icmp.sendEcho(Ipv4.parseAddress("10.0.0.2"), 1, 2, new byte[56])).isZero();
            // delivery on veth is synchronous: request, reply, queued echoes, their replies
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(1);
            assertThat(b.mib().get(MibCounter.ArpOutReplies)).isEqualTo(1);
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isEqualTo(2);
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isEqualTo(2);
            Neighbour n = a.extension(NeighbourTable.class).find(a.requireInterface("veth0"), Ipv4.parseAddress("10.0.0.2"));
            assertThat(n.state()).isEqualTo(Neighbour.State.REACHABLE);
            assertThat(n.mac()).isEqualTo(p.b().macAddress());
            // b learned a from the request
            Neighbour back = b.extension(NeighbourTable.class).find(b.requireInterface("veth1"), Ipv4.parseAddress("10.0.0.1"));
            assertThat(back).isNotNull();
            // REACHABLE turns STALE after base_reachable_time
            clock.advanceMillis(31_000);
            assertThat(n.state()).isEqualTo(Neighbour.State.STALE);
            // using a STALE entry sends at once and probes only after delay_first_probe_time (Linux NUD_DELAY)
            icmp.sendEcho(Ipv4.parseAddress("10.0.0.2"), 1, 3, new byte[8]);
            assertThat(n.state()).isEqualTo(Neighbour.State.DELAY);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(1);
            clock.advanceMillis(5_000);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(2); // unicast probe, answered at once
            assertThat(n.state()).isEqualTo(Neighbour.State.REACHABLE);
        }
    }

    @Test
    void unresolvedNeighbourFailsAfterRetriesAndDropsQueue() {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock)) {
            VethPair p = VethPair.create("veth0", "veth1"); // the other end is attached nowhere
            a.attach(p.a());
            a.addAddress("veth0", "10.0.0.1/24");
            IcmpProtocol icmp = a.extension(IcmpProtocol.class);
            icmp.sendEcho(Ipv4.parseAddress("10.0.0.9"), 1, 1, new byte[10]);
            icmp.sendEcho(Ipv4.parseAddress("10.0.0.9"), 1, 2, new byte[10]);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(1);
            clock.advanceMillis(1000);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(2);
            clock.advanceMillis(1000);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(3);
            clock.advanceMillis(1000);
            Neighbour n = a.extension(NeighbourTable.class).find(a.requireInterface("veth0"), Ipv4.parseAddress("10.0.0.9"));
            assertThat(n.state()).isEqualTo(Neighbour.State.FAILED);
            assertThat(a.mib().get(MibCounter.ArpUnresolvedDiscards)).isEqualTo(2);
        }
    }

    @Test
    void anEntryRemovedAfterGcStaleTimeIsNotFoundAgainAndASendResolvesAfresh() {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace a = NetNamespace.create("a", clock); NetNamespace b = NetNamespace.create("b", clock)) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            NeighbourTable table = a.extension(NeighbourTable.class);
            io.jnet.stack.Interface veth0 = a.requireInterface("veth0");
            int peer = Ipv4.parseAddress("10.0.0.2");
            IcmpProtocol icmp = a.extension(IcmpProtocol.class);
            icmp.sendEcho(peer, 1, 1, new byte[8]);
            Neighbour first = table.find(veth0, peer);
            assertThat(first.state()).isEqualTo(Neighbour.State.REACHABLE);
            assertThat(table.lookup(veth0, peer)).isSameAs(first);
            clock.advanceMillis(31_000); // STALE
            clock.advanceMillis(61_000); // gc_stale_time: removed
            assertThat(first.isDead()).isTrue();
            assertThat(table.find(veth0, peer)).as("a removed entry is not served again").isNull();
            icmp.sendEcho(peer, 1, 2, new byte[8]);
            Neighbour second = table.find(veth0, peer);
            assertThat(second).isNotSameAs(first);
            assertThat(second.state()).isEqualTo(Neighbour.State.REACHABLE);
            assertThat(a.mib().get(MibCounter.ArpOutRequests)).isEqualTo(2);
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isEqualTo(2);
        }
    }

    @Test
    void manyNeighboursEachFindTheirOwnEntry() {
        try (NetNamespace a = NetNamespace.create("a")) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            a.addAddress("veth0", "10.0.0.1/16");
            NeighbourTable table = a.extension(NeighbourTable.class);
            io.jnet.stack.Interface veth0 = a.requireInterface("veth0");
            int base = Ipv4.parseAddress("10.0.4.0");
            int count = 4 * NeighbourTable.HINT_SLOTS; // more than the lookup cache has slots
            Neighbour[] created = new Neighbour[count];
            for (int i = 0; i < count; i++) created[i] = table.lookup(veth0, base + i);
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < count; i++) {
                    assertThat(table.lookup(veth0, base + i)).isSameAs(created[i]);
                    assertThat(table.find(veth0, base + i)).isSameAs(created[i]);
                }
            }
            assertThat(table.entries()).hasSize(count);
        }
    }
}
