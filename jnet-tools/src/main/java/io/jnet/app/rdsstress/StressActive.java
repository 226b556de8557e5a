package io.jnet.app.rdsstress;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The side that sends requests: one RDS socket per task bound to {@code local:port+i}, talking to the passive
 * side's socket {@code remote:port+i}. Each task first sends HELLO (again every second) until the peer answers,
 * then all tasks start together: a sending thread keeps {@code depth} requests without ack in flight and a
 * receiving thread takes the acks, checks their numbering and records each request's round trip. When the time
 * is up the sender sends END with its last request number; the peer answers, after its last ack, with END_ACK
 * carrying its count of the requests it got, which gives the verdict of both directions of the pair.
 */
public final class StressActive implements AutoCloseable {
    /** Receives each second's line (and, for -v, the per-task lines) as it is measured. */
    public interface Output {
        void line(StressLine line, List<String> taskLines);
    }

    private final StressConfig config;
    private final List<Task> tasks = new ArrayList<>();
    private final int bufferFloor;
    /** How long the tasks wait for the peer's last messages after the timed part, set when it ends; ns. */
    private volatile long drainNanos;
    /** Bytes of requests and their acks still outstanding when the timed part ended (one way: the send buffers). */
    private volatile long outstandingBytes;

    /**
     * How long to wait after the timed part for what is still outstanding: twice the time {@code outstandingBytes}
     * take at the rate the run completed them ({@code bytesPerSecond}), plus one second, and never less than
     * {@code floor} (deep queues of large messages take longer to drain than any fixed wait).
     */
    static Duration drainWait(Duration floor, long outstandingBytes, double bytesPerSecond) {
        if (outstandingBytes <= 0) return floor;
        if (!(bytesPerSecond > 0)) return floor.multipliedBy(6);
        double seconds = 2 * outstandingBytes / bytesPerSecond + 1;
        long nanos = (long) Math.min(seconds * 1e9, TimeUnit.HOURS.toNanos(1));
        return nanos > floor.toNanos() ? Duration.ofNanos(nanos) : floor;
    }

    private String drainText() {
        double s = drainNanos / 1e9;
        return String.format(java.util.Locale.ROOT, "%s s after the end (%.0f KiB %s then)",
                s == Math.rint(s) ? Long.toString((long) s) : String.format(java.util.Locale.ROOT, "%.1f", s),
                outstandingBytes / 1024.0, config.oneWay() ? "of send buffers possibly full" : "of requests and acks outstanding");
    }

    /**
     * Opens and binds the tasks' sockets.
     *
     * @throws IOException when a socket cannot be set up (the ones opened are closed)
     */
    public StressActive(StressConfig config, Supplier<RdsSocket> opener, InetAddress local, InetAddress remote,
                        int bufferFloor) throws IOException {
        this.config = config;
        this.bufferFloor = bufferFloor;
        this.drainNanos = config.drainWait().toNanos();
        int buffer = config.socketBuffer(bufferFloor);
        try {
            for (int i = 0; i < config.tasks(); i++) {
                RdsSocket s = StressSockets.open(opener, local, config.port() + i, buffer);
                tasks.add(new Task(i, s, new InetSocketAddress(local, config.port() + i),
                        new InetSocketAddress(remote, config.port() + i)));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Runs: hello, {@code seconds} of traffic with a line per second to {@code out}, then the END exchange.
     *
     * @return the lines, the summary and every pair's result; problems when the peer did not answer
     */
    public StressResult run(Output out) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(tasks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (Task t : tasks) {
            threads.add(Thread.ofPlatform().daemon(true).name("rds-stress-active-" + t.index)
                    .start(() -> t.run(ready, go)));
        }
        long helloMs = config.helloWait().toMillis() + 5_000;
        List<String> problems = new ArrayList<>();
        if (!ready.await(helloMs, TimeUnit.MILLISECONDS)) problems.add("the tasks did not start within " + helloMs + " ms");
        for (Task t : tasks) problems.addAll(t.problems);
        TaskCounters[] counters = tasks.stream().map(t -> t.counters).toArray(TaskCounters[]::new);
        StressMeter meter = new StressMeter(counters);
        if (!problems.isEmpty()) {
            for (Task t : tasks) t.abort = true;
            go.countDown();
            for (Thread th : threads) th.join(1_000);
            return result(meter, problems);
        }
        long start = System.nanoTime();
        go.countDown();
        long prev = start;
        for (int s = 1; s <= config.seconds(); s++) {
            long due = start + TimeUnit.SECONDS.toNanos(s);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) TimeUnit.NANOSECONDS.sleep(wait);
            long now = System.nanoTime();
            StressLine line = meter.sample(now - prev);
            prev = now;
            out.line(line, config.verbose() ? meter.taskLines() : List.of());
        }
        long stopAt = System.nanoTime();
        long sent = 0;
        long acked = 0;
        long txBytes = 0;
        for (Task t : tasks) {
            sent += t.counters.txMsgs.get();
            acked += t.counters.rxMsgs.get();
            txBytes += t.counters.txBytes.get();
        }
        double elapsed = Math.max(1e-3, (stopAt - start) / 1e9);
        if (config.oneWay()) {
            // nothing says how many are still on their way: at most what the send buffers hold
            outstandingBytes = (long) tasks.size() * config.socketBuffer(bufferFloor);
            drainNanos = drainWait(config.drainWait(), outstandingBytes, txBytes / elapsed).toNanos();
        } else {
            long perRequest = (long) config.reqBytes() + config.ackBytes();
            outstandingBytes = Math.max(0, sent - acked) * perRequest;
            drainNanos = drainWait(config.drainWait(), outstandingBytes, acked * perRequest / elapsed).toNanos();
        }
        for (Task t : tasks) t.stopAt = stopAt;
        long joinMs = TimeUnit.NANOSECONDS.toMillis(drainNanos) + 5_000;
        long joinDeadline = System.currentTimeMillis() + joinMs;
        for (Thread th : threads) th.join(Math.max(1, joinDeadline - System.currentTimeMillis()));
        for (Task t : tasks) {
            if (!t.finished) problems.add("task " + t.index + ": still running " + joinMs + " ms after the end");
            problems.addAll(t.problems);
        }
        return result(meter, problems);
    }

    private StressResult result(StressMeter meter, List<String> problems) {
        List<PairResult> pairs = new ArrayList<>();
        for (Task t : tasks) {
            if (t.requests != null) pairs.add(t.requests);
            if (t.acks != null) pairs.add(t.acks);
            pairs.addAll(t.oldAcks);
        }
        List<StressLine> lines = meter.lines();
        Histogram total = meter.total();
        boolean any = total.getTotalCount() > 0;
        return new StressResult("active", lines, StressMeter.average(lines, total), StressMeter.median(lines),
                total.getTotalCount(), any ? total.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                any ? total.getMaxValue() / 1000.0 : Double.NaN, pairs, problems);
    }

    @Override
    public void close() {
        for (Task t : tasks) t.socket.close();
    }

    /** One task: its socket, its sending thread and its receiving thread (the one {@link #run} starts). */
    private final class Task {
        final int index;
        final RdsSocket socket;
        final InetSocketAddress local;
        final InetSocketAddress peer;
        final TaskCounters counters = new TaskCounters();
        final Semaphore window = new Semaphore(config.depth());
        final Queue<String> problems = new ConcurrentLinkedQueue<>();
        PairCheck ackCheck = new PairCheck();
        /** The peer's incarnation seen last (receiving thread); 0 before its first answer. */
        short peerIncarnation;
        /** Acks received from the peer's incarnations before its last restart. */
        long ackedBeforeRestart;
        /** When the peer restarted, in seconds after the start of the task's traffic; NaN when it did not. */
        double restartedAt = Double.NaN;
        long trafficStart;
        volatile boolean abort;
        /** System.nanoTime() when the timed part ended; 0 before. */
        volatile long stopAt;
        /** The last request number sent, set by the sender before it sends END; -1 before. */
        volatile long lastSent = -1;
        volatile boolean finished;
        PairResult requests;
        PairResult acks;

        Task(int index, RdsSocket socket, InetSocketAddress local, InetSocketAddress peer) {
            this.index = index;
            this.socket = socket;
            this.local = local;
            this.peer = peer;
        }

        void run(CountDownLatch ready, CountDownLatch go) {
            try {
                boolean answered = false;
                try {
                    answered = hello();
                    if (!answered) {
                        problems.add("task " + index + ": no answer from " + StressSockets.name(peer) + " within "
                                + config.helloWait().toSeconds() + " s (is the passive side running, with at least -t "
                                + config.tasks() + " and -p " + config.port() + "?)");
                    }
                } catch (IOException | RuntimeException e) {
                    problems.add("task " + index + ": " + e);
                } finally {
                    ready.countDown();
                }
                if (!answered) return;
                go.await();
                if (abort) return;
                trafficStart = System.nanoTime();
                Thread sender = Thread.ofPlatform().daemon(true).name("rds-stress-active-" + index + "-tx")
                        .start(this::send);
                receive();
                sender.join();
                if (requests != null) {
                    trySend(new byte[StressMessage.HEADER_BYTES], StressMessage.BYE, 0, 0, 0);
                }
            } catch (IOException | RuntimeException e) {
                problems.add("task " + index + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished = true;
            }
        }

        /** Sends HELLO every second until HELLO_ACK comes back; false after {@code helloWait}. */
        private boolean hello() throws IOException {
            byte[] out = new byte[StressMessage.HEADER_BYTES];
            byte[] in = new byte[StressMessage.END_ACK_BYTES];
            long deadline = System.nanoTime() + config.helloWait().toNanos();
            long next = System.nanoTime();
            while (System.nanoTime() - deadline < 0) {
                if (System.nanoTime() - next >= 0) {
                    trySend(out, StressMessage.HELLO, 0, 0, 0);
                    next = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                }
                RdsSocket.Received r = receiveOnce(in);
                if (r != null && !r.truncated() && StressMessage.valid(in, r.length())
                        && StressMessage.type(in) == StressMessage.HELLO_ACK) {
                    return true;
                }
            }
            return false;
        }

        /** One attempt at sending a header-only message; false when the send queue or the peer was full. */
        private boolean trySend(byte[] b, byte type, long seq, long echo, long time) throws IOException {
            StressMessage.write(b, b.length, type, (byte) 0, seq, echo, time, 0);
            try {
                socket.send(b, 0, b.length, peer);
                return true;
            } catch (ErrnoException e) {
                if (StressSockets.retry(e)) return false;
                throw e;
            }
        }

        /** A message or null (timeout, congestion update). */
        private RdsSocket.Received receiveOnce(byte[] in) throws IOException {
            try {
                RdsSocket.Received r = socket.receive(in, 0, in.length);
                return r == null || r.isCongestionUpdate() ? null : r;
            } catch (ErrnoException e) {
                if (StressSockets.retry(e)) return null;
                throw e;
            }
        }

        private boolean stopped() { return stopAt != 0; }

        /**
         * Receiving thread: a message from the peer's incarnation {@code inc}. A new one means the peer restarted:
         * its acks are numbered from 1 again, so the acks of the old one are checked apart (their count is what
         * came) and a fresh check starts.
         */
        private void incarnation(short inc, String them, String me) {
            if (inc == peerIncarnation || inc == 0) return;
            if (peerIncarnation != 0) {
                restartedAt = (System.nanoTime() - trafficStart) / 1e9;
                ackedBeforeRestart += ackCheck.received();
                if (!config.oneWay() && ackCheck.received() > 0) {
                    oldAcks.add(ackCheck.result(them, me, "acks before the peer restarted", ackCheck.received()
                            + ackCheck.skipped()));
                }
                ackCheck = new PairCheck();
            }
            peerIncarnation = inc;
        }

        final List<PairResult> oldAcks = new ArrayList<>();

        private boolean drainOver() {
            long s = stopAt;
            return s != 0 && System.nanoTime() - s > drainNanos;
        }

        private void send() {
            try {
                int q = config.reqBytes();
                byte[] b = new byte[q];
                ThreadLocalRandom.current().nextBytes(b);
                byte flags = config.oneWay() ? StressMessage.FLAG_ONE_WAY : 0;
                long seq = 0;
                outer:
                while (!stopped()) {
                    if (!config.oneWay() && !window.tryAcquire(StressSockets.POLL.toMillis(), TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    seq++;
                    StressMessage.write(b, q, StressMessage.REQUEST, flags, seq, 0, System.nanoTime(), config.ackBytes());
                    while (true) {
                        try {
                            socket.send(b, 0, q, peer);
                            break;
                        } catch (ErrnoException e) {
                            if (!StressSockets.retry(e)) throw e;
                            if (stopped()) {
                                seq--;
                                break outer;
                            }
                        }
                    }
                    counters.sent(q);
                }
                lastSent = seq;
                byte[] end = new byte[StressMessage.HEADER_BYTES];
                while (!trySend(end, StressMessage.END, seq, 0, 0)) {
                    if (drainOver()) {
                        problems.add("task " + index + ": could not send END within " + drainText());
                        return;
                    }
                }
            } catch (IOException | RuntimeException e) {
                problems.add("task " + index + " sender: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Takes acks until END_ACK, or until the drain time after the end is over. */
        private void receive() throws IOException {
            byte[] in = new byte[Math.max(config.ackBytes(), StressMessage.END_ACK_BYTES)];
            String me = StressSockets.name(local);
            String them = StressSockets.name(peer);
            while (true) {
                if (drainOver()) {
                    problems.add("task " + index + ": no END_ACK from " + them + " within " + drainText());
                    // what arrived is still checked; how many the peer sent is unknown
                    if (!config.oneWay()) acks = ackCheck.result(them, me, "acks", -1);
                    return;
                }
                RdsSocket.Received r = receiveOnce(in);
                if (r == null) continue;
                if (r.truncated() || !StressMessage.valid(in, r.length())) {
                    ackCheck.corrupt();
                    continue;
                }
                byte type = StressMessage.type(in);
                if (type == StressMessage.ACK || type == StressMessage.END_ACK) incarnation(StressMessage.incarnation(in), them, me);
                switch (type) {
                    case StressMessage.ACK -> {
                        long rtt = System.nanoTime() - StressMessage.time(in);
                        ackCheck.accept(StressMessage.seq(in));
                        counters.received(r.length());
                        counters.rtt(rtt);
                        window.release();
                    }
                    case StressMessage.END_ACK -> {
                        // requests before the first one a restarted peer counted are not its to answer
                        long first = Math.max(1, StressMessage.echo(in));
                        if (first > 1 && !Double.isNaN(restartedAt)) {
                            long unanswered = Math.max(0, first - 1 - ackedBeforeRestart);
                            problems.add(String.format(java.util.Locale.ROOT, "task %d: peer %s restarted at %.1f s"
                                    + " (a new incarnation answered from request %d on): %d requests unanswered by a peer"
                                    + " that restarted, not counted as lost", index, them, restartedAt, first, unanswered));
                        }
                        requests = PairResult.of(me, them, "requests", lastSent < 0 ? lastSent : Math.max(0, lastSent - (first - 1)),
                                StressMessage.counter(in, 0),
                                StressMessage.counter(in, 1), StressMessage.counter(in, 2), StressMessage.counter(in, 3));
                        if (!config.oneWay()) acks = ackCheck.result(them, me, "acks", StressMessage.seq(in));
                        return;
                    }
                    case StressMessage.HELLO_ACK -> { } // an answer to a repeated HELLO
                    default -> problems.add("task " + index + ": unexpected message type " + StressMessage.type(in)
                            + " from " + StressSockets.name(r.sender()));
                }
            }
        }
    }
}
