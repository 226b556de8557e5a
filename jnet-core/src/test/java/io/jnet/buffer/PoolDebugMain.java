package io.jnet.buffer;

/**
 * Run in a JVM of its own with {@code -Djnet.pool.debug=true} by {@link PoolDebugModeTest}: misuses pooled
 * buffers and prints what the debug mode caught, one line each.
 */
public final class PoolDebugMain {
    private PoolDebugMain() {}

    public static void main(String[] args) {
        PacketPool pool = new PacketPool();
        // use after release: the array of a released buffer
        PacketBuffer b = pool.allocate(64, 100);
        b.release();
        try {
            b.array();
            System.out.println("use after release: not caught");
        } catch (IllegalStateException e) {
            System.out.println("use after release: caught: " + e.getMessage());
        }
        // use after release through a clone whose data is gone
        PacketBuffer o = pool.allocate(64, 100);
        PacketBuffer c = o.cloneShared();
        o.release();
        c.release();
        try {
            c.array();
            System.out.println("clone use after release: not caught");
        } catch (IllegalStateException e) {
            System.out.println("clone use after release: caught");
        }
        // double release: the second is reported (standard error) and has no effect
        PacketBuffer d = pool.allocate(64, 100);
        int free = pool.freeBuffers();
        d.release();
        d.release();
        System.out.println("double release: free buffers +" + (pool.freeBuffers() - free));
    }
}
