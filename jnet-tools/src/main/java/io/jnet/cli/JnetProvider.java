package io.jnet.cli;

import io.jnet.app.JdkHttp;
import io.jnet.nio.JnetSelectorProvider;
import java.io.PrintWriter;
import java.nio.channels.spi.SelectorProvider;

/**
 * Makes jnet's {@link JnetSelectorProvider} the JVM-wide provider for {@code jnet serve} and {@code jnet fetch},
 * which run the JDK's {@code HttpServer} and {@code HttpClient}: those take {@link SelectorProvider#provider()} and
 * no provider of their own.
 *
 * <p>Why here and not in the {@code ./jnet} launcher: the launcher starts every command, and {@code jnet perf}
 * measures the kernel through the JDK's own channels ({@code SocketChannel.open()}, the {@code kernel:*} paths)
 * and starts its lane JVMs with this JVM's options; with the property on the launcher's command line those would
 * be jnet's channels (or fail outside a jnet scope). The JVM-wide provider is chosen once, at the first use of
 * NIO, and a CLI JVM runs one command: so serve and fetch set the property themselves, after their options are
 * checked and before anything of theirs touches NIO, and check that it took. A JVM that already has the property
 * keeps its value; one whose provider is already the kernel's (NIO used earlier in the same JVM) gets a message,
 * never a silent fall back to the kernel.
 */
final class JnetProvider {
    private JnetProvider() {}

    /**
     * Sets the property unless set and checks that the JVM-wide provider is jnet's.
     *
     * @return true if it is; otherwise prints why not as {@code command: ...} on {@code err}
     */
    static boolean install(String command, PrintWriter err) {
        if (System.getProperty(JdkHttp.PROVIDER_PROPERTY) == null) {
            System.setProperty(JdkHttp.PROVIDER_PROPERTY, JnetSelectorProvider.class.getName());
        }
        if (JdkHttp.onJnet()) return true;
        err.println(command + ": the JVM-wide SelectorProvider is " + SelectorProvider.provider().getClass().getName()
                + ", not jnet's (NIO was used before " + command + " started, or -D" + JdkHttp.PROVIDER_PROPERTY
                + " names another); run it in a JVM of its own, e.g. ./jnet");
        err.flush();
        return false;
    }
}
