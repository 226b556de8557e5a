package io.jnet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jnet drill}'s usage errors: exit 2 with a clear message, before any script plays. */
class DrillCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream outBuf = new ByteArrayOutputStream(), errBuf = new ByteArrayOutputStream();

    private int run(String... args) {
        errBuf.reset();
        return Main.run(new PrintStream(outBuf, true, StandardCharsets.UTF_8), new PrintStream(errBuf, true, StandardCharsets.UTF_8), args);
    }

    private String err() { return errBuf.toString(StandardCharsets.UTF_8); }

    @Test
    void optionsOutOfRangeAreUsageErrors() throws Exception {
        String s = Files.writeString(dir.resolve("a.pkt"), "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n").toString();
        assertThat(run("drill", "--tolerance_usecs=-1", s)).isEqualTo(2);
        assertThat(err()).contains("--tolerance_usecs");
        assertThat(run("drill", "--tolerance_usecs=999999999999", s)).isEqualTo(2);
        assertThat(run("drill", "--runs=0", s)).isEqualTo(2);
        assertThat(err()).contains("--runs");
        assertThat(run("drill", "-D", "=5", s)).isEqualTo(2);
        assertThat(err()).contains("-D");
        assertThat(run("drill", "--mtu=67", s)).isEqualTo(2);
        assertThat(run("drill", "--mtu=65536", s)).isEqualTo(2);
        assertThat(err()).contains("--mtu");
        assertThat(run("drill", "--gateway_ip=10.0.0.1", s)).isEqualTo(2);
        assertThat(err()).contains("--gateway_ip").contains("/16");
        assertThat(run("drill", "--remote_ip=192.168.0.1", s)).isEqualTo(2); // the stack's own address
        assertThat(err()).contains("--remote_ip 192.168.0.1 must differ");
        assertThat(run("drill", "")).isEqualTo(2);
        assertThat(err()).contains("empty path");
    }

    @Test
    void aDirectoryWithoutScriptsIsAUsageError() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertThat(run("drill", empty.toString())).isEqualTo(2);
        assertThat(err()).contains("no scripts found under " + empty);
    }
}
