package io.jnet.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.CommandResult;
import io.jnet.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The capture gate: tshark, with checksum validation on for IPv4, TCP and UDP, must find no malformed
 * packet, no expert info of severity error and no bad checksum in a capture, and the capture must hold
 * at least {@link #MIN_FRAMES} frames. A kernel frame whose TCP checksum is 0xFFFF for 0x0000 is not an error
 * ({@link io.jnet.testing.CaptureFilters#MANGLED_ZERO_TCP_CHECKSUM}). Captures are kept under {@code target/interop-captures/}.
 */
final class CaptureGate {

    static final int MIN_FRAMES = 10;
    static final String FILTER = "_ws.malformed || _ws.expert.severity>=error || tcp.checksum.status==0"
            + " || udp.checksum.status==0 || ip.checksum.status==0";
    private static final Duration TSHARK_TIMEOUT = Duration.ofSeconds(60);

    private CaptureGate() {}

    /** {@code target/interop-captures/NAME.pcap}, the directory created. */
    static Path file(String name) throws IOException {
        Path dir = Path.of("target", "interop-captures");
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".pcap");
        Files.deleteIfExists(file);
        return file;
    }

    /** Runs the gate on {@code file}; returns tshark's one-line summary of every frame. */
    static String check(Path file) throws IOException {
        CommandResult bad = Tools.run(TSHARK_TIMEOUT, "tshark", "-n", "-r", file.toString(),
                "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                "-Y", io.jnet.testing.CaptureFilters.problemsExceptMangledZero(FILTER)).checkSuccess();
        assertThat(bad.stdout()).as("tshark found malformed frames, errors or bad checksums in %s", file).isEmpty();
        CommandResult all = Tools.run(TSHARK_TIMEOUT, "tshark", "-n", "-r", file.toString()).checkSuccess();
        assertThat(all.stdout().lines().count()).as("frames in %s:\n%s", file, all.stdout())
                .isGreaterThanOrEqualTo(MIN_FRAMES);
        return all.stdout();
    }
}
