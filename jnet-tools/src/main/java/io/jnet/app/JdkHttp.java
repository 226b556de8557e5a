package io.jnet.app;

import io.jnet.nio.JnetNetwork;
import io.jnet.nio.JnetSelectorProvider;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.Callable;

/**
 * Running the JDK's HTTP classes ({@code com.sun.net.httpserver.HttpServer}, {@code java.net.http.HttpClient}) on
 * a jnet namespace. They open their channels and selectors through the JVM-wide
 * {@link SelectorProvider#provider()} and take no provider of their own, so the JVM must run with
 * {@code -Djava.nio.channels.spi.SelectorProvider=io.jnet.nio.JnetSelectorProvider} (or have set that property
 * before anything touched NIO, as {@code jnet serve} and {@code jnet fetch} do), and the classes are created
 * inside {@link JnetNetwork#call} of the namespace, which tells the provider where the channels belong (threads
 * they start inside inherit it).
 */
public final class JdkHttp {
    private JdkHttp() {}

    /** The system property that names the JVM-wide provider. */
    public static final String PROVIDER_PROPERTY = "java.nio.channels.spi.SelectorProvider";

    /** Whether the JVM-wide provider is jnet's. */
    public static boolean onJnet() {
        return SelectorProvider.provider() instanceof JnetSelectorProvider;
    }

    /**
     * Runs {@code task} with {@code ns} as the namespace of the channels it opens.
     *
     * @throws IllegalStateException when the JVM-wide provider is not jnet's (the channels would be the kernel's)
     */
    static <T> T on(NetNamespace ns, Callable<T> task) throws IOException {
        if (!onJnet()) {
            throw new IllegalStateException("the JDK's HTTP classes take the JVM-wide SelectorProvider, which is "
                    + SelectorProvider.provider().getClass().getName() + ", not jnet's: run the JVM with -D"
                    + PROVIDER_PROPERTY + "=" + JnetSelectorProvider.class.getName());
        }
        try {
            return JnetNetwork.of(ns).call(task);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}
