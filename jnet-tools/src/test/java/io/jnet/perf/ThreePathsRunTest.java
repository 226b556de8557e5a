package io.jnet.perf;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of the run tests that measure one test on the three paths a run test covers: jnet over loopback,
 * jnet over a veth pair, and the kernel over 127.0.0.1; opened once per test class, closed after it.
 */
abstract class ThreePathsRunTest {

    static PerfPath kernel;
    static PerfPath jnet;
    static PerfPath jnetVeth;

    @BeforeAll
    static void openPaths() throws IOException {
        kernel = KernelPaths.tcp();
        jnet = JnetPaths.loopback(java.util.Map.of());
        jnetVeth = JnetPaths.veth(java.util.Map.of());
    }

    @AfterAll
    static void closePaths() {
        kernel.close();
        jnet.close();
        jnetVeth.close();
    }

    /** jnet loopback, jnet veth, kernel. */
    static List<PerfPath> paths() {
        return List.of(jnet, jnetVeth, kernel);
    }
}
