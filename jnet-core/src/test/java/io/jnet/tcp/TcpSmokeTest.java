package io.jnet.tcp;

import io.jnet.testing.TcpTransfers;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.VethPair;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TcpSmokeTest {

    @Test
    void loopbackTransfer() throws Exception {
        try (NetNamespace ns = NetNamespace.create("smoke")) {
            TcpTransfers.transfer(ns, ns, "127.0.0.1", 3 << 20);
            assertThat(ns.internalErrors()).isZero();
        }
    }

    @Test
    void vethTransfer() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            TcpTransfers.transfer(a, b, "10.0.0.2", 3 << 20);
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
        }
    }
}
