package io.jnet.nio.programs;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java over Netty's NIO transport (io.grpc:grpc-netty; no native transport, no protobuf: the messages are
 * byte arrays), a unary call and a server-streaming call. Which network it runs on is only the Netty transport
 * given: {@link NettyPrograms.Transport}.
 */
public final class GrpcPrograms {
    private GrpcPrograms() {}

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) { return new ByteArrayInputStream(value); }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<byte[], byte[]> GREET = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("jnet.Test/Greet")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    static final MethodDescriptor<byte[], byte[]> COUNT = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("jnet.Test/Count")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    /** A server with Greet ("hello NAME") and Count (the numbers 1..N as separate messages). */
    public static Server server(NettyPrograms.Transport t, InetSocketAddress addr) throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder("jnet.Test")
                .addMethod(GREET, ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext(("hello " + new String(req, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
                    out.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    int n = Integer.parseInt(new String(req, StandardCharsets.UTF_8));
                    for (int i = 1; i <= n; i++) out.onNext(Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                    out.onCompleted();
                }))
                .build();
        return NettyServerBuilder.forAddress(addr)
                .channelFactory(() -> (NioServerSocketChannel) t.serverChannels().get())
                .bossEventLoopGroup(t.group()).workerEventLoopGroup(t.group())
                .addService(service).build().start();
    }

    /** A plaintext client channel to {@code server}. */
    public static ManagedChannel channel(NettyPrograms.Transport t, InetSocketAddress server) {
        return NettyChannelBuilder.forAddress(server)
                .channelFactory(() -> (NioSocketChannel) t.channels().get())
                .eventLoopGroup(t.group()).usePlaintext().build();
    }

    /** The unary call. */
    public static String greet(ManagedChannel ch, String name) {
        return new String(ClientCalls.blockingUnaryCall(ch, GREET, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                name.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    /** The server-streaming call: the messages received. */
    public static List<String> count(ManagedChannel ch, int n) {
        List<String> got = new ArrayList<>();
        Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(ch, COUNT,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), Integer.toString(n).getBytes(StandardCharsets.UTF_8));
        while (it.hasNext()) got.add(new String(it.next(), StandardCharsets.UTF_8));
        return got;
    }

    /** Unchanged program: server and client on 127.0.0.1 over Netty's default NIO transport. */
    public static void main(String[] args) throws Exception {
        NettyPrograms.Transport t = NettyPrograms.Transport.defaults(2);
        Server s = server(t, new InetSocketAddress("127.0.0.1", 50051));
        ManagedChannel ch = channel(t, new InetSocketAddress("127.0.0.1", 50051));
        try {
            System.out.println("grpc-unary " + greet(ch, "jnet"));
            System.out.println("grpc-stream " + count(ch, 100).size());
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            t.shutdown();
        }
    }
}
