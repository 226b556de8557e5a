package io.jnet.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.app.TapStack;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ErrorTextTest {

    @TempDir
    Path dir;

    @Test
    void privilegeHintOnlyForEpermAndEacces() {
        String eperm = TapOpenErrors.describe("jnet0",
                new IOException("TUNSETIFF failed: errno 1 (EPERM: Operation not permitted) for interface 'jnet0'"));
        assertThat(eperm).isEqualTo("cannot open TAP interface jnet0: TUNSETIFF failed: errno 1 (EPERM: Operation not"
                + " permitted) for interface 'jnet0' (needs root or CAP_NET_ADMIN)");
        assertThat(TapOpenErrors.describe("jnet0", new IOException("open /dev/net/tun failed: errno 13 (EACCES: Permission denied)")))
                .endsWith("(needs root or CAP_NET_ADMIN)");
        String ebusy = TapOpenErrors.describe("jnet0",
                new IOException("TUNSETIFF failed: errno 16 (EBUSY: Device or resource busy) for interface 'jnet0'"));
        assertThat(ebusy).endsWith("(interface busy: another process holds it)").doesNotContain("CAP_NET_ADMIN");
        String einval = TapOpenErrors.describe("eth0",
                new IOException("TUNSETIFF failed: errno 22 (EINVAL: Invalid argument) for interface 'eth0'"));
        assertThat(einval).endsWith("(bad interface name or not a TAP)").doesNotContain("CAP_NET_ADMIN");
        assertThat(TapOpenErrors.describe("jnet0", new IOException("eventfd failed: errno 24 (EMFILE: Too many open files)")))
                .doesNotContain("CAP_NET_ADMIN").endsWith("(EMFILE: Too many open files)");
    }

    @Test
    void captureFileErrorsNameTheFileNotTheTap() throws IOException {
        Path missing = dir.resolve("no/x.pcap");
        var e = new TapStack.CaptureFileException(missing, new NoSuchFileException(missing.toString()));
        assertThat(TapOpenErrors.describe("jnet0", e))
                .isEqualTo("cannot write " + missing + ": no such directory " + missing.getParent());
    }

    @Test
    void outputFileChecks() throws IOException {
        OutputFiles.checkWritable(dir.resolve("new.bin"));
        Path existing = Files.writeString(dir.resolve("old.bin"), "x");
        OutputFiles.checkWritable(existing);
        assertThatThrownBy(() -> OutputFiles.checkWritable(dir.resolve("a/b.bin")))
                .hasMessage("cannot write " + dir.resolve("a/b.bin") + ": no such directory " + dir.resolve("a"));
        assertThatThrownBy(() -> OutputFiles.checkWritable(dir)).hasMessageEndingWith(": it is a directory");
        assertThatThrownBy(() -> OutputFiles.checkWritable(existing.resolve("x")))
                .hasMessageEndingWith(existing + " is not a directory");
        assertThat(OutputFiles.describe(Path.of("/x/y"), new AccessDeniedException("/x/y")))
                .isEqualTo("cannot write /x/y: permission denied");
        assertThat(OutputFiles.describe(dir.resolve("a/b.bin"), new java.nio.file.NoSuchFileException("b.bin")))
                .isEqualTo("cannot write " + dir.resolve("a/b.bin") + ": no such directory " + dir.resolve("a"));
        assertThat(OutputFiles.describe(dir.resolve("c.bin"), new java.nio.file.NoSuchFileException("c.bin")))
                .as("ENOENT in a directory that exists (as /proc gives)")
                .isEqualTo("cannot write " + dir.resolve("c.bin") + ": cannot create a file in " + dir);
    }
}
