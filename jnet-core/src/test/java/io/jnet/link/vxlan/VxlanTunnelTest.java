package io.jnet.link.vxlan;

import io.jnet.testing.TcpTransfers;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.icmp.IcmpProtocol;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.wire.Ipv4;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Two jnet namespaces in one JVM joined by two VxlanDevices whose UDP sockets talk over the host's
 * 127.0.0.1: ping, a TCP transfer, and learning of the remote VTEP.
 */
class VxlanTunnelTest {

    static final InetAddress LOCALHOST = InetAddress.getLoopbackAddress();
    static final int A_IP = Ipv4.parseAddress("198.51.100.1");
    static final int B_IP = Ipv4.parseAddress("198.51.100.2");

    static VxlanDevice.Builder device(String name) {
        return VxlanDevice.builder(name).vni(42).localAddress(new InetSocketAddress(LOCALHOST, 0));
    }

    static void join(NetNamespace a, VxlanDevice va, NetNamespace b, VxlanDevice vb) {
        a.attach(va);
        b.attach(vb);
        a.addAddress(va.name(), "198.51.100.1/24");
        b.addAddress(vb.name(), "198.51.100.2/24");
    }

    static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    /** Sends {@code count} echo requests from {@code from} to {@code dst}, each answered before the next. */
    static void ping(NetNamespace from, int dst, int count) throws InterruptedException {
        IcmpProtocol icmp = from.extension(IcmpProtocol.class);
        long before = from.mib().get(MibCounter.IcmpInEchoReps);
        for (int seq = 1; seq <= count; seq++) {
            assertThat(icmp.sendEcho(dst, 7, seq, new byte[56])).isZero();
            long want = before + seq;
            waitUntil(() -> from.mib().get(MibCounter.IcmpInEchoReps) >= want, "echo reply " + want);
        }
    }

    @Test
    void pingAndTcpTransferThroughTheTunnel() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b");
             VxlanDevice va = device("vxa").learning(false).open();
             VxlanDevice vb = device("vxb").learning(false).remote(va.localAddress()).open()) {
            va.addFloodRemote(vb.localAddress());
            join(a, va, b, vb);

            ping(a, B_IP, 3);
            assertThat(a.mib().get(MibCounter.IcmpOutEchos)).isEqualTo(3);
            assertThat(b.mib().get(MibCounter.IcmpInEchos)).isEqualTo(3);
            assertThat(b.mib().get(MibCounter.IcmpOutEchoReps)).isEqualTo(3);
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isEqualTo(3);
            assertThat(a.mib().get(MibCounter.IcmpInErrors)).isZero();

            TcpTransfers.transfer(a, b, "198.51.100.2", 4 << 20);

            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
            for (VxlanDevice v : new VxlanDevice[] {va, vb}) {
                assertThat(v.stats().rxErrors.sum()).as(v + " " + v.stats()).isZero();
                assertThat(v.stats().txErrors.sum()).as(v + " " + v.stats()).isZero();
            }
            assertThat(va.stats().txBytes.sum()).as("the data went through a's tunnel").isGreaterThan(4 << 20);
            assertThat(vb.stats().rxBytes.sum()).isGreaterThan(4 << 20);
        }
    }

    @Test
    void oneSideLearnsTheOtherFromReceivedFrames() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b");
             VxlanDevice vb = device("vxb").learnSourcePort(true).open();
             VxlanDevice va = device("vxa").learning(false).remote(vb.localAddress()).open()) {
            join(a, va, b, vb);
            assertThat(vb.floodRemotes()).as("b knows no remote").isEmpty();

            ping(a, B_IP, 2);

            assertThat(vb.fdb().entries()).singleElement().satisfies(e -> {
                assertThat(e.mac()).isEqualTo(va.macAddress());
                assertThat(e.remote()).isEqualTo(va.localAddress());
                assertThat(e.isStatic()).isFalse();
            });
            assertThat(vb.vxlanStats().fdbLearned.sum()).isEqualTo(1);
            assertThat(vb.vxlanStats().txNoRemote.sum()).isZero();
            TcpTransfers.transfer(a, b, "198.51.100.2", 1 << 20);
        }
    }

    @Test
    void withoutLearningOrRemoteTheRepliesHaveNowhereToGo() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b");
             VxlanDevice vb = device("vxb").learning(false).open();
             VxlanDevice va = device("vxa").learning(false).remote(vb.localAddress()).open()) {
            join(a, va, b, vb);
            a.extension(IcmpProtocol.class).sendEcho(B_IP, 7, 1, new byte[56]);
            waitUntil(() -> vb.vxlanStats().txNoRemote.sum() >= 1, "b's ARP reply dropped for lack of a remote");
            assertThat(vb.fdb().entries()).isEmpty();
            assertThat(a.mib().get(MibCounter.IcmpInEchoReps)).isZero();
        }
    }

    @Test
    void vniMismatchIsDroppedAndCounted() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b");
             VxlanDevice va = device("vxa").open();
             VxlanDevice vb = device("vxb").vni(43).remote(va.localAddress()).open()) {
            va.addFloodRemote(vb.localAddress());
            join(a, va, b, vb);
            a.extension(IcmpProtocol.class).sendEcho(B_IP, 7, 1, new byte[56]);
            waitUntil(() -> vb.vxlanStats().rxVniMismatch.sum() >= 1, "the ARP request dropped by b");
            assertThat(vb.stats().rxDropped.sum()).isEqualTo(vb.vxlanStats().rxVniMismatch.sum());
            assertThat(vb.stats().rxPackets.sum()).isZero();
            assertThat(b.mib().get(MibCounter.ArpInRequests)).isZero();
        }
    }
}
