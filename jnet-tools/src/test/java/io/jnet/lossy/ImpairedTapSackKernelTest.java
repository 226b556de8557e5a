package io.jnet.lossy;

import java.time.Duration;

/**
 * SACK loss recovery with the Linux kernel as peer over a TAP link ({@link ImpairedKernelPeer}: jnet at 192.0.2.2,
 * the kernel at 192.0.2.1 in a namespace the test creates and removes, no default route), impaired on jnet's side in
 * both directions ({@link KernelSackExchange}: loss as given, 1 % reordering (3 frames, 10 ms at most), 1 ms delay
 * each way, fixed seed). The kernel's curl downloads {@link SackKernelTestBase#SIZE} bytes from jnet's HTTP server and uploads as many
 * to it (jnet sends, then receives), SHA-256 checked; the capture on the TAP side of the impairment is then read by
 * tshark (checksums checked), which must find no malformed frame and SACK blocks from both ends. Needs root, curl and
 * bash; without tshark the capture check is skipped with the reason printed. The cases are {@link SackKernelTestBase}'s.
 *
 * <p>Cost on a 2-core machine: about 6 s at 1 %, 8 s at 5 % and 50 s at 15 % (jnet's sending half, 48 s: some 100
 * retransmission timeouts, where the kernel sending the same 8 MiB to jnet over the same link has none and takes
 * 1 s), with about 3 s of tshark for each capture.
 */
class ImpairedTapSackKernelTest extends SackKernelTestBase {
    @Override
    void run(int lossPercent, long size, Duration timeout) throws Exception {
        KernelSackExchange.run(dir, "TAP", ImpairedKernelPeer::open, lossPercent, size, timeout);
    }
}
