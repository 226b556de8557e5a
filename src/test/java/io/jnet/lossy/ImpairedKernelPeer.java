package io.jnet.lossy;

import io.jnet.app.JnetServer;
import io.jnet.app.TapStack;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import java.io.IOException;
import java.time.Duration;

/**
 * The Linux kernel as jnet's peer over a TAP link whose jnet end is impaired: a jnet namespace on a
 * fresh TAP interface (jnet at 192.0.2.2/24) with an {@link ImpairedDevice} in front of the TAP device,
 * and the interface's kernel side moved into a fresh Linux network namespace at 192.0.2.1/24 (IPv6 off,
 * link up). The kernel gets no offloads from the TAP, so it sends complete checksums and MTU-sized
 * frames.
 */
final class ImpairedKernelPeer implements AutoCloseable {
    static final String KERNEL_IP = "192.0.2.1";
    static final String JNET_IP = "192.0.2.2";

    private final TapStack stack;
    private final ImpairedDevice impaired;
    private final LinuxNetns netns;
    private JnetServer server;

    private ImpairedKernelPeer(TapStack stack, ImpairedDevice impaired, LinuxNetns netns) {
        this.stack = stack;
        this.impaired = impaired;
        this.netns = netns;
    }

    /** Sets up both sides, the impairment in front of jnet's TAP device. */
    static ImpairedKernelPeer open(ImpairmentConfig impairment) throws IOException {
        return open(impairment, null);
    }

    /**
     * Sets up both sides, the impairment in front of jnet's TAP device; {@code pcap} (or null) captures the frames
     * on the TAP side of the impairment.
     */
    static ImpairedKernelPeer open(ImpairmentConfig impairment, java.nio.file.Path pcap) throws IOException {
        TapStack stack = TapStack.open(new TapStack.Config("jnetl%d", JNET_IP + "/24", 1500, pcap));
        LinuxNetns netns = null;
        try {
            ImpairedDevice impaired = ImpairedDevice.interpose(stack.namespace(), stack.ifname(), impairment);
            netns = LinuxNetns.create();
            String dev = stack.ifname();
            netns.moveLink(dev);
            netns.sysctl("net.ipv6.conf." + dev + ".disable_ipv6", "1");
            netns.addAddress(dev, KERNEL_IP + "/24");
            netns.linkUp("lo");
            netns.linkUp(dev);
            return new ImpairedKernelPeer(stack, impaired, netns);
        } catch (IOException | RuntimeException e) {
            stack.close();
            if (netns != null) netns.close();
            throw e;
        }
    }

    /** Starts jnet's HTTP server on port 80 (and echo, discard). */
    JnetServer serve() throws IOException {
        server = JnetServer.start(stack.namespace(), stack.address(), JnetServer.Ports.defaults());
        return server;
    }

    NetNamespace jnet() { return stack.namespace(); }

    LinuxNetns netns() { return netns; }

    ImpairedDevice impaired() { return impaired; }

    /** Runs a shell command line (bash, pipefail) in the Linux namespace. */
    CommandResult shell(Duration timeout, String script) throws IOException {
        return netns.exec(timeout, "bash", "-c", "set -o pipefail; " + script);
    }

    /** The kernel namespace's value of one {@code nstat} counter (e.g. {@code TcpRetransSegs}), absolute. */
    long kernelCounter(String name) throws IOException {
        return netns.exec("nstat", "-az", name).stdout().lines().filter(l -> l.startsWith(name + " "))
                .map(l -> Long.parseLong(l.trim().split("\\s+")[1])).findFirst()
                .orElseThrow(() -> new IOException("nstat has no " + name));
    }

    /** {@code name value} of each of {@code names} in the kernel namespace, comma-separated ({@code ?}: no such counter). */
    String kernelCounters(String... names) {
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            String v;
            try {
                v = Long.toString(kernelCounter(n));
            } catch (IOException | RuntimeException e) {
                v = "?";
            }
            b.append(b.isEmpty() ? "" : ", ").append(n).append(' ').append(v);
        }
        return b.toString();
    }

    /** One line: impairments both ways, jnet's retransmissions and timeouts, the kernel's TCP retransmissions. */
    String summary() {
        String kernel;
        try {
            kernel = netns.exec("nstat", "-az", "TcpRetransSegs", "TcpExtTCPTimeouts").stdout().lines()
                    .filter(l -> l.startsWith("Tcp")).map(l -> l.replaceAll("\\s+", " ").replaceAll(" 0\\.0$", ""))
                    .reduce((x, y) -> x + ", " + y).orElse("?");
        } catch (IOException e) {
            kernel = "? (" + e + ")";
        }
        return "egress " + impaired.counts(Direction.EGRESS).summary() + "\ningress " + impaired.counts(Direction.INGRESS).summary()
                + "\njnet: TcpRetransSegs " + jnet().mib().get(MibCounter.TcpRetransSegs) + ", TcpExtTCPTimeouts "
                + jnet().mib().get(MibCounter.TcpExtTCPTimeouts) + "; kernel: " + kernel;
    }

    /** Stops the services, closes jnet's namespace (deleting the TAP) and the Linux namespace. */
    @Override
    public void close() {
        try {
            if (server != null) server.close();
        } finally {
            try {
                stack.close();
            } finally {
                netns.close();
            }
        }
    }
}
