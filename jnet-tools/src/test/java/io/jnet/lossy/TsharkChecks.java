package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.CommandResult;
import io.jnet.testing.Tools;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What the lossy kernel tests ask tshark about a capture (the caller checks tshark is installed). */
final class TsharkChecks {
    private TsharkChecks() {}

    /**
     * tshark, IP and TCP checksums checked, finds no malformed frame, expert error or bad checksum in {@code pcap}.
     * TCP reassembly is off: over a lossy link with duplicates it reports overlapping retransmissions, not malformed TCP.
     * A TCP checksum of 0xFFFF for 0x0000 from the kernel is not an error
     * ({@link io.jnet.testing.CaptureFilters#MANGLED_ZERO_TCP_CHECKSUM}).
     *
     * @param options more tshark options, such as {@code -d udp.port==N,vxlan} (decode a port as VXLAN)
     */
    static void assertNoMalformedFrames(Path pcap, Duration timeout, String... options) throws Exception {
        CommandResult bad = tshark(timeout, pcap, options, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                "-o", "tcp.desegment_tcp_streams:FALSE", "-Y", io.jnet.testing.CaptureFilters.problemsExceptMangledZero(
                        "_ws.malformed || _ws.expert.severity>=error || tcp.checksum.status==0 || ip.checksum.status==0"));
        assertThat(bad.stdout()).as("malformed frames or errors").isEmpty();
    }

    /**
     * How many frames of {@code pcap} match the display filter {@code filter}.
     *
     * @param options more tshark options, as for {@link #assertNoMalformedFrames}
     */
    static long count(Path pcap, String filter, Duration timeout, String... options) throws Exception {
        return tshark(timeout, pcap, options, "-Y", filter).stdout().lines().count();
    }

    private static CommandResult tshark(Duration timeout, Path pcap, String[] options, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", pcap.toString()));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of(args));
        return Tools.run(timeout, cmd).checkSuccess();
    }
}
