package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketPool;
import java.util.concurrent.TimeUnit;

/** Checks on a namespace's packet pool for tests that want to see every buffer come back. */
public final class PoolChecks {
    private PoolChecks() {}

    /**
     * Waits up to 20 s until every buffer {@code pool} created is free in it again (sockets, queued and delayed
     * frames gone), then asserts so: a buffer missing leaked, one too many was freed twice.
     */
    public static void awaitAllReturned(PacketPool pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pool.freeBuffers() != pool.created() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat((long) pool.freeBuffers()).as("buffers free in the pool vs created by it").isEqualTo(pool.created());
    }
}
