package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.jnet.nio.programs.GrpcPrograms;
import io.jnet.nio.programs.NettyPrograms;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Netty 4.2's NIO transport and gRPC-java over it, their own code, on jnet's provider: server in one namespace,
 * client in another, joined by a veth pair. The only jnet-specific line is which provider the transport takes.
 */
@Timeout(120)
class NettyOnJnetTest {
    private static final String A = "10.9.2.1", B = "10.9.2.2";
    private NetNamespace a, b;
    private NettyPrograms.Transport ta, tb;

    @BeforeEach
    void setUp() {
        a = NetNamespace.create("netty-a");
        b = NetNamespace.create("netty-b");
        Topology.link(a, b, "veth0", A + "/24", B + "/24");
        ta = NettyPrograms.Transport.of(JnetNetwork.of(a).selectorProvider(), 1);
        tb = NettyPrograms.Transport.of(JnetNetwork.of(b).selectorProvider(), 1);
    }

    @AfterEach
    void tearDown() {
        ta.shutdown();
        tb.shutdown();
        a.close();
        b.close();
        assertThat(a.internalErrors() + b.internalErrors()).isZero();
    }

    @Test
    void echoStreamAndRequestResponse() throws Exception {
        InetSocketAddress addr = new InetSocketAddress(B, 7);
        Channel server = NettyPrograms.echoServer(tb, addr);
        long bytes = 16L << 20;
        assertThat(NettyPrograms.echoStream(ta, addr, bytes)).isEqualTo(bytes);
        assertThat(NettyPrograms.echoRoundTrips(ta, addr, 2000)).isEqualTo(2000);
        server.close().sync();
    }

    @Test
    void httpServerSeesItsOwnNamespacesAddress() throws Exception {
        Channel server = NettyPrograms.httpServer(tb, new InetSocketAddress(B, 80));
        assertThat(NettyPrograms.httpGet(ta, new InetSocketAddress(B, 80), "/index")).isEqualTo("200 hello from " + B + " /index");
        server.close().sync();
    }

    @Test
    void grpcUnaryAndStreamingCalls() throws Exception {
        Server server = GrpcPrograms.server(tb, new InetSocketAddress(B, 50051));
        ManagedChannel ch = GrpcPrograms.channel(ta, new InetSocketAddress(B, 50051));
        try {
            assertThat(GrpcPrograms.greet(ch, "jnet")).isEqualTo("hello jnet");
            List<String> got = GrpcPrograms.count(ch, 500);
            assertThat(got).containsExactlyElementsOf(IntStream.rangeClosed(1, 500).mapToObj(Integer::toString).toList());
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
