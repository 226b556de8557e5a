package io.jnet.testing;

import io.jnet.nio.JnetSelectorProvider;
import java.nio.channels.spi.SelectorProvider;

/**
 * The kernel's {@link SelectorProvider}, for test helpers that need the host's network (a VXLAN underlay) in a JVM
 * whose JVM-wide provider may be jnet's (the tests that run the JDK's HTTP classes on jnet). The JDK has no public
 * accessor for its default provider once another is installed: then it is {@code sun.nio.ch.DefaultSelectorProvider},
 * reached with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} (the build passes it to that JVM).
 */
public final class KernelProvider {
    private KernelProvider() {}

    public static SelectorProvider get() {
        SelectorProvider p = SelectorProvider.provider();
        if (!(p instanceof JnetSelectorProvider)) return p;
        try {
            return (SelectorProvider) Class.forName("sun.nio.ch.DefaultSelectorProvider").getMethod("get").invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("the JVM-wide SelectorProvider is jnet's and the kernel's is not reachable:"
                    + " run with --add-exports java.base/sun.nio.ch=ALL-UNNAMED", e);
        }
    }
}
