package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.CommandResult;
import io.jnet.testing.Tools;
import java.nio.file.Path;
import java.time.Duration;

/** What the lossy kernel tests ask tshark about a capture (the caller checks tshark is installed). */
final class TsharkChecks {
    private TsharkChecks() {}

    /**
     * tshark, IP and TCP checksums checked, finds no malformed frame, expert error or bad checksum in {@code pcap}.
     * TCP reassembly is off: over a lossy link with duplicates it reports overlapping retransmissions, not malformed TCP.
     * A TCP checksum of 0xFFFF from the kernel is not an error: Linux's skb_checksum_help writes CSUM_MANGLED_0
     * (0xFFFF) where the checksum folds to 0, its one's complement twin, which every receiver accepts (about one
     * frame in 65536; tshark flags it as an expert error).
     */
    static void assertNoMalformedFrames(Path pcap, Duration timeout) throws Exception {
        CommandResult bad = Tools.run(timeout, "tshark", "-n", "-r", pcap.toString(), "-o", "tcp.check_checksum:TRUE",
                "-o", "ip.check_checksum:TRUE", "-o", "tcp.desegment_tcp_streams:FALSE", "-Y", "(_ws.malformed || _ws.expert.severity>=error"
                        + " || tcp.checksum.status==0 || ip.checksum.status==0) && !(ip.src == " + ImpairedKernelPeer.KERNEL_IP
                        + " && tcp.checksum == 0xffff && !_ws.malformed)").checkSuccess();
        assertThat(bad.stdout()).as("malformed frames or errors").isEmpty();
    }

    /** How many frames of {@code pcap} match the display filter {@code filter}. */
    static long count(Path pcap, String filter, Duration timeout) throws Exception {
        return Tools.run(timeout, "tshark", "-n", "-r", pcap.toString(), "-Y", filter).checkSuccess().stdout().lines().count();
    }
}
