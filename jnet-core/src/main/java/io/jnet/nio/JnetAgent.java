package io.jnet.nio;

import io.jnet.dns.NameService;
import io.jnet.dns.ResolvConf;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Network;
import io.jnet.topology.NetworkConfig;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs an unchanged Java program on jnet: {@code java -javaagent:jnet-core.jar[=CONFIG] -jar app.jar}. Before the
 * program's {@code main}, it builds the network the configuration describes ({@link NetworkConfig}: the file
 * {@code CONFIG}, else the {@code jnet.config} / {@code jnet.config.inline} system properties, else one namespace
 * with only {@code lo} at 127.0.0.1), makes its default namespace the JVM's {@linkplain JnetNetwork#setDefault
 * default}, gives each namespace its {@code nameserver}/{@code search}/{@code options} and {@code host} lines
 * ({@link NameService}), and installs jnet behind every JDK entry point it serves:
 * <ul>
 * <li>{@code java.nio.channels.spi.SelectorProvider} = {@link JnetSelectorProvider}: SocketChannel,
 * ServerSocketChannel, DatagramChannel, Pipe, Selector, and what is built on them (HttpClient, the JDK's HttpServer,
 * Netty's NIO transport, ...);</li>
 * <li>{@link JnetSockets#install()}: {@code java.net.Socket}, {@code ServerSocket} and {@code HttpURLConnection};</li>
 * <li>{@link JnetResolverProvider} (found by the JDK through the jar's service file): {@code InetAddress} lookups
 * answer from the namespace's hosts lines and name servers; with more than one namespace the JDK's address cache is
 * turned off, since it is one for the whole JVM.</li>
 * </ul>
 * Not covered (they still reach the kernel, so the agent leaves them alone and says so in the README):
 * {@code java.net.DatagramSocket} and {@code MulticastSocket} (they go to the JDK's own provider, not the installed
 * one) and {@code AsynchronousSocketChannel}.
 *
 * <p>Errors stop the JVM before the program starts, with exit status 1 and one line on standard error naming the
 * cause: a configuration error with its line, a device that cannot be opened (TAP needs CAP_NET_ADMIN), a SelectorProvider or socket factory set
 * to something else already. The network is closed when the JVM exits.
 */
public final class JnetAgent {
    private static Network installed;

    private JnetAgent() {}

    /** The agent's entry point ({@code Premain-Class}); {@code args} is the configuration file, or empty. */
    public static void premain(String args, Instrumentation inst) {
        try {
            install(args == null || args.isBlank() ? null : Path.of(args));
        } catch (IOException | RuntimeException e) {
            // one clear line and exit status 1, not the JVM's abort with an agent's stack trace
            StringBuilder why = new StringBuilder(String.valueOf(e.getMessage() != null ? e.getMessage() : e));
            if (e instanceof java.nio.file.NoSuchFileException) why.insert(0, "no such file: ");
            System.err.println("jnet: the program is not started, its network cannot be set up: " + why);
            System.exit(1);
        }
    }

    /**
     * Builds and installs the network as {@link JnetAgent} describes; for launchers that run the program's main
     * themselves. Once per JVM.
     *
     * @param config the configuration file, or null for the system properties or the default (loopback only)
     * @return the network built
     * @throws IOException when the configuration cannot be read or applied
     * @throws IllegalStateException when jnet is installed already, or the JVM-wide provider or socket factories are
     *                               something else's
     */
    public static synchronized Network install(Path config) throws IOException {
        if (installed != null) throw new IllegalStateException("jnet is installed already: " + installed);
        NetworkConfig cfg = config != null ? NetworkConfig.load(config)
                : NetworkConfig.fromSystemProperties().orElseGet(() -> NetworkConfig.parse("namespace jnet\n", "default"));
        String property = System.getProperty(PROVIDER_PROPERTY);
        if (property != null && !property.equals(JnetSelectorProvider.class.getName())) {
            throw new IllegalStateException("jnet: " + PROVIDER_PROPERTY + " is set to " + property + " already");
        }
        if (cfg.namespaces().size() > 1) JnetResolverProvider.disableJdkAddressCache();
        Network network = cfg.apply();
        try {
            for (Map.Entry<String, NetNamespace> e : network.namespaces().entrySet()) {
                NameService names = NameService.of(e.getValue());
                String hosts = String.join("\n", network.hostsLines(e.getKey()));
                if (!hosts.isEmpty()) names.hosts().addAll(hosts);
                String resolv = String.join("\n", network.resolvConfLines(e.getKey()));
                if (!resolv.isEmpty()) names.setResolvConf(ResolvConf.parse(resolv));
            }
            JnetNetwork.setDefault(JnetNetwork.of(network.defaultNamespace()));
            System.setProperty(PROVIDER_PROPERTY, JnetSelectorProvider.class.getName());
            if (!(SelectorProvider.provider() instanceof JnetSelectorProvider)) {
                throw new IllegalStateException("jnet: the JVM's SelectorProvider was chosen before the agent ran: "
                        + SelectorProvider.provider().getClass().getName());
            }
            JnetSockets.install();
        } catch (IOException | RuntimeException e) {
            network.close();
            JnetNetwork.setDefault(null);
            throw e;
        }
        installed = network;
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("jnet-shutdown").unstarted(network::close));
        return network;
    }

    /** The network the agent installed, or null. */
    public static synchronized Network installed() { return installed; }

    /** The JDK's system property naming the JVM-wide SelectorProvider. */
    public static final String PROVIDER_PROPERTY = "java.nio.channels.spi.SelectorProvider";
}
