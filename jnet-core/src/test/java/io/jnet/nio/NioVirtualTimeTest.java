package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a namespace that runs on a {@link VirtualClock}, the timeouts of blocking calls and of select count virtual
 * time: a virtual thread waiting 30 s of it returns as soon as the clock is advanced, never after real seconds.
 */
@Timeout(30)
class NioVirtualTimeTest {
    private final VirtualClock clock = new VirtualClock();
    private NetNamespace ns;
    private SelectorProvider p;

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("nio-vt", clock);
        p = JnetNetwork.of(ns).selectorProvider();
    }

    @AfterEach
    void tearDown() {
        ns.close();
    }

    @Test
    void adaptorReadTimeoutExpiresOnVirtualTime() throws Exception {
        try (ServerSocketChannel ssc = p.openServerSocketChannel().bind(new InetSocketAddress("127.0.0.1", 80));
             SocketChannel c = p.openSocketChannel()) {
            c.connect(new InetSocketAddress("127.0.0.1", 80));
            Socket s = c.socket();
            s.setSoTimeout(30_000);
            CompletableFuture<Throwable> read = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    s.getInputStream().read();
                    read.complete(null);
                } catch (Throwable t) {
                    read.complete(t);
                }
            });
            long t0 = System.nanoTime();
            Thread.sleep(50);
            assertThat(read).isNotDone();
            clock.advance(Duration.ofSeconds(29));
            Thread.sleep(50);
            assertThat(read).as("29 of 30 virtual seconds").isNotDone();
            clock.advance(Duration.ofSeconds(1));
            assertThat(read.get(5, TimeUnit.SECONDS)).isInstanceOf(SocketTimeoutException.class);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(ssc.accept()).isNotNull();
        }
    }

    @Test
    void selectTimeoutExpiresOnVirtualTime() throws Exception {
        try (Selector sel = p.openSelector(); ServerSocketChannel ssc = p.openServerSocketChannel()) {
            ssc.bind(new InetSocketAddress("127.0.0.1", 81)).configureBlocking(false);
            ssc.register(sel, SelectionKey.OP_ACCEPT);
            CompletableFuture<Integer> selected = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    selected.complete(sel.select(60_000));
                } catch (Throwable t) {
                    selected.completeExceptionally(t);
                }
            });
            Thread.sleep(50);
            assertThat(selected).isNotDone();
            clock.advance(Duration.ofSeconds(61));
            assertThat(selected.get(5, TimeUnit.SECONDS)).isZero();
        }
    }
}
