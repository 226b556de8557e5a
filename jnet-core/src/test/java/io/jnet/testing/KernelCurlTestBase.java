package io.jnet.testing;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the tests in which the kernel's curl, in a Linux network namespace, talks to jnet and checks what it got
 * with sha256sum under bash: each test is skipped, with the reason printed, unless namespaces can be made (root) and
 * those three tools are installed. A subclass needing more tools checks them in its own {@code @BeforeEach}, which
 * runs after this one.
 */
public abstract class KernelCurlTestBase {
    /** A fresh directory for each test: files to serve, upload or capture. */
    @TempDir
    protected Path dir;

    @BeforeEach
    protected void needsRootCurlSha256sumAndBash() {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("curl");
        Tools.assumeHas("sha256sum");
        Tools.assumeHas("bash");
    }
}
