package io.jnet.lossy;

import io.jnet.app.TapStack;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.LinuxNetns;
import java.io.IOException;

/**
 * The Linux kernel as jnet's peer over a TAP link whose jnet end is impaired: a jnet namespace on a
 * fresh TAP interface (jnet at 192.0.2.2/24) with an {@link ImpairedDevice} in front of the TAP device,
 * and the interface's kernel side moved into a fresh Linux network namespace at 192.0.2.1/24 (IPv6 off,
 * link up). The kernel gets no offloads from the TAP, so it sends complete checksums and MTU-sized
 * frames.
 */
final class ImpairedKernelPeer extends ImpairedPeer {
    static final String KERNEL_IP = "192.0.2.1";
    static final String JNET_IP = "192.0.2.2";

    private final TapStack stack;
    private final LinuxNetns netns;

    private ImpairedKernelPeer(TapStack stack, ImpairedDevice impaired, LinuxNetns netns) {
        super(impaired);
        this.stack = stack;
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

    @Override
    NetNamespace jnet() { return stack.namespace(); }

    @Override
    LinuxNetns netns() { return netns; }

    @Override
    String jnetIp() { return JNET_IP; }

    @Override
    String kernelIp() { return KERNEL_IP; }

    /** Stops the services, closes jnet's namespace (deleting the TAP) and the Linux namespace. */
    @Override
    public void close() {
        try {
            closeServer();
        } finally {
            try {
                stack.close();
            } finally {
                netns.close();
            }
        }
    }
}
