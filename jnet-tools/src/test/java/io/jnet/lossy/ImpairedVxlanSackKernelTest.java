package io.jnet.lossy;

import io.jnet.testing.Tools;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/**
 * SACK loss recovery with the Linux kernel as peer over a VXLAN tunnel ({@link ImpairedVxlanKernelPeer}: a Linux
 * {@code vxlan} interface at 198.51.100.1 in a namespace the test creates and removes, jnet's VXLAN device at
 * 198.51.100.2, no default route), impaired on jnet's side in both directions as {@link ImpairedTapSackKernelTest}'s
 * TAP link is ({@link KernelSackExchange}: loss as given, 1 % reordering (3 frames, 10 ms at most), 1 ms delay each
 * way, fixed seed). The kernel's curl downloads bytes from jnet's HTTP server and uploads as many to it, SHA-256
 * checked; tshark captures the underlay on the wire side of the impairment, decodes the VXLAN in it and must find no
 * malformed frame and SACK blocks in the inner TCP from both ends. Needs root, curl, bash and ethtool; without tshark
 * the capture check is skipped with the reason printed.
 *
 * <p>The cases are {@link SackKernelTestBase}'s. Cost on a 2-core machine: 5 s at 1 %, 8 s at 5 % and 45-135 s at
 * 15 % (jnet's sending half: some 100 retransmission timeouts, backed off, where the kernel on its default congestion
 * control sends the same 8 MiB in 1 s), 2 s of tshark each.
 */
class ImpairedVxlanSackKernelTest extends SackKernelTestBase {
    @BeforeEach
    void needsEthtool() {
        Tools.assumeHas("ethtool");
    }

    @Override
    void run(int lossPercent, long size, Duration timeout) throws Exception {
        KernelSackExchange.run(dir, "VXLAN tunnel", (impairment, pcap) -> ImpairedVxlanKernelPeer.open(impairment,
                Tools.has("tshark") ? pcap : null), lossPercent, size, timeout);
    }
}
