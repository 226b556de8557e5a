package io.jnet.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.JnetServer;
import io.jnet.app.TapStack;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The Linux kernel as jnet's peer: a jnet namespace on a fresh TAP interface ({@link TapStack}, jnet at
 * 192.0.2.2/24) whose kernel side is moved into a fresh Linux network namespace ({@link LinuxNetns}) and
 * given 192.0.2.1/24, IPv6 off on the link, link up. Kernel-side tools run there with {@link #exec}.
 *
 * <p>The TAP interface is opened without {@code IFF_VNET_HDR} and no {@code TUNSETOFFLOAD}, so the
 * kernel offers it no checksum or segmentation offload: every frame it sends jnet carries complete
 * checksums and fits the MTU.
 */
final class KernelPeer implements AutoCloseable {

    static final String KERNEL_IP = "192.0.2.1";
    static final String JNET_IP = "192.0.2.2";

    private final TapStack stack;
    private final LinuxNetns netns;
    private JnetServer server;

    private KernelPeer(TapStack stack, LinuxNetns netns) {
        this.stack = stack;
        this.netns = netns;
    }

    /** Sets up both sides; {@code pcap} (or null) captures every frame on jnet's side of the TAP. */
    static KernelPeer open(Path pcap) throws IOException {
        TapStack stack = TapStack.open(new TapStack.Config("jnetk%d", JNET_IP + "/24", 1500, pcap));
        LinuxNetns netns = null;
        try {
            netns = LinuxNetns.create();
            String dev = stack.ifname();
            netns.moveLink(dev);
            netns.sysctl("net.ipv6.conf." + dev + ".disable_ipv6", "1");
            netns.addAddress(dev, KERNEL_IP + "/24");
            netns.linkUp("lo");
            netns.linkUp(dev);
            return new KernelPeer(stack, netns);
        } catch (IOException | RuntimeException e) {
            stack.close();
            if (netns != null) netns.close();
            throw e;
        }
    }

    /** Starts HTTP on 80, echo on 7, discard on 9 on jnet's side. */
    JnetServer serve() throws IOException {
        server = JnetServer.start(stack.namespace(), stack.address(), JnetServer.Ports.defaults());
        return server;
    }

    TapStack stack() { return stack; }

    NetNamespace jnet() { return stack.namespace(); }

    LinuxNetns netns() { return netns; }

    /** Runs a kernel-side command in the Linux namespace. */
    CommandResult exec(Duration timeout, String... cmd) throws IOException {
        return netns.exec(timeout, cmd);
    }

    /** Runs a shell command line (bash, pipefail) in the Linux namespace. */
    CommandResult shell(Duration timeout, String script) throws IOException {
        return netns.exec(timeout, "bash", "-c", "set -o pipefail; " + script);
    }

    /** Asserts that no exception was caught inside the jnet stack, naming the last one otherwise. */
    void assertNoInternalErrors() {
        assertThat(jnet().internalErrors()).as("jnet internal errors, last: %s", stackTrace(jnet().lastInternalError()))
                .isZero();
    }

    static String stackTrace(Throwable t) {
        if (t == null) return "none";
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    /** jnet-side counters, for failure messages and reports. */
    String counters() {
        return stack.ifname() + " " + stack.tap().stats() + "\nnstat:\n" + jnet().mib().toNstatString();
    }

    /** Stops the services, closes jnet's namespace (and the TAP, deleting the interface) and the Linux namespace. */
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
