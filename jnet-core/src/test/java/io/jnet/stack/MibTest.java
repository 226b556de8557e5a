package io.jnet.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The counters, counted from many threads at once (each thread counts into its own stripe). */
class MibTest {

    @Test
    void everyIncrementFromEveryThreadIsCounted() throws Exception {
        Mib mib = new Mib();
        int threads = 8;
        int each = 100_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int n = t;
            started.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                for (int i = 0; i < each; i++) {
                    mib.inc(MibCounter.IpForwDatagrams);
                    mib.add(MibCounter.IpInReceives, n);
                }
            }));
        }
        start.countDown();
        for (Thread t : started) t.join();
        assertThat(mib.get(MibCounter.IpForwDatagrams)).isEqualTo((long) threads * each);
        assertThat(mib.get(MibCounter.IpInReceives)).isEqualTo((long) each * (threads * (threads - 1) / 2));
        assertThat(mib.get(MibCounter.IpInDelivers)).isZero();
        assertThat(mib.snapshot()).containsEntry(MibCounter.IpForwDatagrams, (long) threads * each);
        assertThat(mib.toNstatString()).contains("IpForwDatagrams").doesNotContain("IpInDelivers");
    }

    @Test
    void theGaugeRisesInOneThreadAndFallsInAnother() throws Exception {
        Mib mib = new Mib();
        Thread up = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 1000; i++) mib.inc(MibCounter.TcpCurrEstab);
        });
        up.join();
        Thread down = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 400; i++) mib.dec(MibCounter.TcpCurrEstab);
        });
        down.join();
        assertThat(mib.get(MibCounter.TcpCurrEstab)).isEqualTo(600);
        assertThat(mib.get("TcpCurrEstab")).isEqualTo(600);
    }
}
