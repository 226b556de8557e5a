package io.jnet.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code -Djnet.pool.debug=true} (read once, when the pool class loads, so in a JVM of its own): use after
 * release throws, for an original and for a clone, and a second release is reported with where the first one
 * happened and changes nothing.
 */
class PoolDebugModeTest {
    @Test
    void debugModeCatchesUseAfterReleaseAndDoubleRelease() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-Djnet.pool.debug=true", "-cp",
                System.getProperty("java.class.path"), PoolDebugMain.class.getName())).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isZero();
        assertThat(out).contains("use after release: caught: use after release")
                .contains("clone use after release: caught")
                .contains("double release: free buffers +1");
        assertThat(err).as("the second release, with the first one's stack").contains("second release")
                .contains("released here");
    }
}
