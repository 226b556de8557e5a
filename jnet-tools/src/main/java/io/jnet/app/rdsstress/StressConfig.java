package io.jnet.app.rdsstress;

import java.time.Duration;

/**
 * What one rds-stress run does.
 *
 * @param reqBytes    bytes of each request, {@link StressMessage#HEADER_BYTES} to RdsSocket.MAX_MESSAGE_SIZE
 * @param ackBytes    bytes of each ack, as {@code reqBytes}
 * @param tasks       task count: each task is one RDS socket on each side, bound to {@code port + task}
 * @param depth       requests each task keeps in flight (without ack)
 * @param seconds     length of the timed part
 * @param oneWay      requests only: the passive side sends no acks (then {@code depth} does not bound sends)
 * @param port        first RDS port; task i uses {@code port + i} on both sides
 * @param verbose     per-task figures every second and every pair's result at the end
 * @param helloWait   how long the active side waits for the passive side's first answer
 * @param drainWait   the least time a side waits for the peer's last messages after the timed part (the active
 *                    side waits longer when much is outstanding, see StressActive.drainWait)
 */
public record StressConfig(int reqBytes, int ackBytes, int tasks, int depth, int seconds, boolean oneWay, int port,
                           boolean verbose, Duration helloWait, Duration drainWait) {

    /** Largest message in bytes (RdsSocket.MAX_MESSAGE_SIZE). */
    public static final int MAX_MESSAGE = io.jnet.socket.RdsSocket.MAX_MESSAGE_SIZE;

    public StressConfig {
        check("-q/--req-bytes", reqBytes, StressMessage.HEADER_BYTES, MAX_MESSAGE);
        check("-a/--ack-bytes", ackBytes, StressMessage.HEADER_BYTES, MAX_MESSAGE);
        check("-t/--tasks", tasks, 1, 1024);
        check("-d/--depth", depth, 1, 65536);
        check("-T/--time", seconds, 1, 86_400);
        check("-p/--port", port, 1, 65535);
        if (port + tasks - 1 > 65535) {
            throw new IllegalArgumentException("-p " + port + " with -t " + tasks + " needs ports up to "
                    + (port + tasks - 1) + ", above 65535");
        }
    }

    private static void check(String option, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(option + " must be " + min + " to " + max + ": " + v
                    + (option.startsWith("-q") || option.startsWith("-a")
                            ? " (each message carries a " + StressMessage.HEADER_BYTES
                                    + "-byte header with its sequence number and checksum)" : ""));
        }
    }

    /**
     * SO_SNDBUF and SO_RCVBUF asked of every socket, in bytes: room for {@code depth} messages of the larger size
     * (and their 48-byte RDS headers), so that neither the send queue nor the receiver's congestion threshold
     * (half of the doubled SO_RCVBUF, as Linux) holds back a task's {@code depth} requests in flight; never below
     * {@code floor} (the namespace's net.core.wmem_default).
     */
    public int socketBuffer(int floor) {
        long perMessage = Math.max(reqBytes, ackBytes) + 48L;
        long want = Math.max(floor, perMessage * depth);
        return (int) Math.min(want, Integer.MAX_VALUE / 2);
    }
}
