package io.jnet.lossy;

import io.jnet.testing.KernelCurlTestBase;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cases of a SACK test with the Linux kernel as peer over one kind of impaired link ({@link KernelSackExchange}):
 * 8 MiB each way at 1, 5 and 15 % loss in the default run, 64 MiB each way tagged long. A subclass names the link.
 */
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
abstract class SackKernelTestBase extends KernelCurlTestBase {
    static final long SIZE = 8L << 20;
    static final long LONG_SIZE = 64L << 20;

    @ParameterizedTest(name = "{0}% loss, 8 MiB each way")
    @ValueSource(ints = {1, 5, 15})
    @Timeout(1200)
    void eightMebibytesEachWayByteExactWithSackBothWays(int lossPercent) throws Exception {
        run(lossPercent, SIZE, Duration.ofSeconds(500));
    }

    @ParameterizedTest(name = "{0}% loss, 64 MiB each way")
    @ValueSource(ints = {1, 5, 15})
    @Tag("long")
    @Timeout(3600)
    void sixtyFourMebibytesEachWay(int lossPercent) throws Exception {
        run(lossPercent, LONG_SIZE, Duration.ofSeconds(3000));
    }

    /** One exchange of {@code size} bytes each way at {@code lossPercent} % loss over this test's link. */
    abstract void run(int lossPercent, long size, Duration timeout) throws Exception;
}
