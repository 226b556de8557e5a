package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.impair.ImpairedDevice;
import io.jnet.link.impair.ImpairmentConfig;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.VxlanKernelPeer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The Linux kernel as jnet's peer over a VXLAN tunnel whose jnet end is impaired: a {@link VxlanKernelPeer} (underlay
 * veth from this host's namespace to a test namespace, VNI 42, kernel {@link VxlanKernelPeer#KERNEL_INNER}, jnet
 * {@link VxlanKernelPeer#JNET_INNER}) with an {@link ImpairedDevice} in front of jnet's VXLAN device. A capture, when
 * asked for, is taken by tshark on the underlay veth end in this host's namespace, that is on the wire side of the
 * impairment: UDP datagrams to and from {@link #vxlanPort()}, decoded as VXLAN with {@link #tsharkOptions()} (which
 * tshark needs off port 4789).
 */
final class ImpairedVxlanKernelPeer extends ImpairedPeer {
    private static final Duration CAPTURE_START = Duration.ofSeconds(20);

    private final VxlanKernelPeer peer;
    private final BackgroundProcess capture;

    private ImpairedVxlanKernelPeer(VxlanKernelPeer peer, ImpairedDevice impaired, BackgroundProcess capture) {
        super(impaired);
        this.peer = peer;
        this.capture = capture;
    }

    /**
     * Sets up both sides, the impairment in front of jnet's VXLAN device; {@code pcap} (or null) captures the
     * underlay (tshark must be installed then). The capture is running when this returns.
     */
    static ImpairedVxlanKernelPeer open(ImpairmentConfig impairment, Path pcap) throws IOException, InterruptedException {
        VxlanKernelPeer peer = VxlanKernelPeer.open("jvs", "vxlan-sack");
        BackgroundProcess capture = null;
        try {
            ImpairedDevice impaired = ImpairedDevice.interpose(peer.jnet(), "vx0", impairment);
            if (pcap != null) capture = startCapture(peer.hostVeth(), pcap);
            return new ImpairedVxlanKernelPeer(peer, impaired, capture);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (capture != null) capture.close();
            peer.close();
            throw e;
        }
    }

    /** tshark capturing {@code dev} into {@code pcap}, once it says it is capturing. */
    private static BackgroundProcess startCapture(String dev, Path pcap) throws IOException, InterruptedException {
        BackgroundProcess p = BackgroundProcess.start(List.of("tshark", "-n", "-q", "-i", dev, "-B", "32", "-F", "pcap",
                "-w", pcap.toString()));
        long deadline = System.nanoTime() + CAPTURE_START.toNanos();
        while (!p.stderr().contains("Capturing on")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String why = p.describe();
                p.close();
                throw new IOException("capture did not start: " + why);
            }
            Thread.sleep(50);
        }
        return p;
    }

    /** The UDP port VXLAN runs on (4789 unless this host had it taken). */
    int vxlanPort() { return peer.vtep().localAddress().getPort(); }

    @Override
    String[] tsharkOptions() { return new String[] {"-d", "udp.port==" + vxlanPort() + ",vxlan"}; }

    @Override
    NetNamespace jnet() { return peer.jnet(); }

    @Override
    LinuxNetns netns() { return peer.netns(); }

    @Override
    String jnetIp() { return VxlanKernelPeer.JNET_INNER; }

    @Override
    String kernelIp() { return VxlanKernelPeer.KERNEL_INNER; }

    /** Besides the base checks: jnet's VXLAN device dropped nothing it received as malformed. */
    @Override
    void assertImpairedAndClean() {
        super.assertImpairedAndClean();
        assertThat(peer.vtep().stats().rxErrors.sum()).as(peer.vtep().stats().toString()).isZero();
    }

    /**
     * Stops the capture (letting tshark finish its file; its count of packets captured and dropped is printed), the
     * services, then closes jnet's side and deletes the veth pair and the Linux namespace.
     */
    @Override
    public void close() {
        try {
            if (capture != null) stopCapture();
        } finally {
            try {
                closeServer();
            } finally {
                peer.close();
            }
        }
    }

    private void stopCapture() {
        try {
            int status = capture.terminate(Duration.ofSeconds(20));
            String said = capture.stderr();
            if (status != 0) throw new IllegalStateException("capture ended with status " + status + ": " + said.strip());
            said.lines().filter(l -> l.contains("packets")).forEach(l -> System.out.println("capture: " + l.strip()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the capture", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } finally {
            capture.close();
        }
    }
}
