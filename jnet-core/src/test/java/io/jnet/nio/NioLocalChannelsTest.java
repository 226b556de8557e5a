package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UNIX-family socket channels (jnet's local stream sockets) and pipes of {@link JnetSelectorProvider}. */
@Timeout(30)
class NioLocalChannelsTest {
    private NetNamespace ns;
    private SelectorProvider p;
    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("nio-local");
        p = JnetNetwork.of(ns).selectorProvider();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        ns.close();
    }

    @Test
    void unixChannelsConnectByNameAndCarryData() throws Exception {
        UnixDomainSocketAddress name = UnixDomainSocketAddress.of("/run/app.sock");
        try (ServerSocketChannel ssc = p.openServerSocketChannel(StandardProtocolFamily.UNIX);
             SocketChannel c = p.openSocketChannel(StandardProtocolFamily.UNIX)) {
            ssc.bind(name);
            assertThat(ssc.getLocalAddress()).isEqualTo(name);
            assertThatThrownBy(() -> c.connect(new InetSocketAddress("127.0.0.1", 1))).isInstanceOf(UnsupportedAddressTypeException.class);
            assertThat(c.connect(name)).isTrue();
            assertThat(c.getRemoteAddress()).isEqualTo(name);
            assertThatThrownBy(c::socket).isInstanceOf(UnsupportedOperationException.class);
            try (SocketChannel s = ssc.accept()) {
                c.write(ByteBuffer.wrap("over unix".getBytes()));
                c.shutdownOutput();
                ByteBuffer in = ByteBuffer.allocate(64);
                while (s.read(in) >= 0) { }
                assertThat(new String(in.array(), 0, in.position())).isEqualTo("over unix");
            }
        }
        // the name stays taken after close, as a socket file does, until unlinked
        try (ServerSocketChannel again = p.openServerSocketChannel(StandardProtocolFamily.UNIX)) {
            assertThatThrownBy(() -> again.bind(name)).isInstanceOf(IOException.class).hasMessageContaining("Address already in use");
            ns.unlink("/run/app.sock");
            again.bind(name);
        }
    }

    @Test
    void unboundUnixChannelGetsAFreshName() throws Exception {
        try (ServerSocketChannel ssc = p.openServerSocketChannel(StandardProtocolFamily.UNIX)) {
            ssc.bind(null);
            assertThat(((UnixDomainSocketAddress) ssc.getLocalAddress()).getPath().toString()).startsWith("/tmp/socket_");
        }
    }

    @Test
    void pipeCarriesBytesSelectsAndEndsAtTheSinksClose() throws Exception {
        Pipe pipe = p.openPipe();
        try (Selector sel = p.openSelector()) {
            pipe.source().configureBlocking(false);
            SelectionKey k = pipe.source().register(sel, SelectionKey.OP_READ);
            assertThat(sel.selectNow()).isZero();
            assertThat(pipe.sink().write(ByteBuffer.wrap("abc".getBytes()))).isEqualTo(3);
            assertThat(sel.select(5000)).isEqualTo(1);
            assertThat(k.isReadable()).isTrue();
            ByteBuffer in = ByteBuffer.allocate(8);
            assertThat(pipe.source().read(in)).isEqualTo(3);
            assertThat(pipe.source().read(in)).isZero();
            pipe.sink().close();
            assertThat(pipe.source().read(in)).isEqualTo(-1);
        }
        Pipe blocked = p.openPipe();
        Future<Throwable> reader = pool.submit(() -> {
            try {
                blocked.source().read(ByteBuffer.allocate(4));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(100);
        blocked.source().close();
        assertThat(reader.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(() -> blocked.sink().write(ByteBuffer.wrap(new byte[1]))).isInstanceOf(IOException.class)
                .hasMessage("Broken pipe");
        blocked.sink().close();
    }
}
