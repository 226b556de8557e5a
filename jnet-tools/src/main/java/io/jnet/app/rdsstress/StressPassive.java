package io.jnet.app.rdsstress;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.time.Duration;

/**
 * The side that answers: one RDS socket per task bound to {@code local:port+i}. Its receiving thread checks the
 * numbering and checksum of each request per sender and hands the answer (HELLO_ACK, an ack of the size the
 * request asks for, END_ACK with the counts) to the task's sending thread, so that a send waiting for a
 * congested peer never stops the receiving (which would congest this side in turn). A task is done when every
 * sender that said HELLO has said END.
 */
public final class StressPassive implements AutoCloseable {
    private final StressConfig config;
    private final List<Task> tasks = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;
    /** This side's incarnation, in every message it sends: never 0 (the active side's). */
    private final short incarnation = (short) (1 + ThreadLocalRandom.current().nextInt(65535));

    /**
     * Opens and binds the tasks' sockets ({@code config}'s tasks, port and buffer sizes).
     *
     * @throws IOException when a socket cannot be set up (the ones opened are closed)
     */
    public StressPassive(StressConfig config, Supplier<RdsSocket> opener, InetAddress local, int bufferFloor)
            throws IOException {
        this.config = config;
        int buffer = config.socketBuffer(bufferFloor);
        try {
            for (int i = 0; i < config.tasks(); i++) {
                RdsSocket s = StressSockets.open(opener, local, config.port() + i, buffer);
                tasks.add(new Task(i, s, new InetSocketAddress(local, config.port() + i)));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Starts the tasks' threads. */
    public void start() {
        for (Task t : tasks) {
            threads.add(Thread.ofPlatform().daemon(true).name("rds-stress-passive-" + t.index).start(t::receive));
            threads.add(Thread.ofPlatform().daemon(true).name("rds-stress-passive-" + t.index + "-tx").start(t::send));
        }
    }

    /**
     * Prints a line per second (to {@code out}) from now until {@link #done}, then waits up to {@code byeWait} for
     * the BYEs, and returns the run seen from this side. Once traffic has begun, {@code idleLimit} without any
     * message from any active task ends the run too, with a problem line: the active side stopped (it died, or
     * its network did) and will not send END.
     */
    public StressResult run(StressActive.Output out, Duration idleLimit, Duration byeWait) throws InterruptedException {
        StressMeter meter = new StressMeter(counters());
        long start = System.nanoTime();
        long prev = start;
        String idle = null;
        for (int s = 1; !done(); ) {
            long now = System.nanoTime();
            if (started() && now - lastHeard() > idleLimit.toNanos()) {
                idle = "no message from any active task for " + idleLimit.toSeconds() + " s (--wait) after traffic"
                        + " began: the active side stopped before END; giving up";
                break;
            }
            long due = start + TimeUnit.SECONDS.toNanos(s);
            if (now - due >= 0) {
                StressLine line = meter.sample(now - prev);
                prev = now;
                out.line(line, config.verbose() ? meter.taskLines() : List.of());
                s++;
            } else {
                Thread.sleep(10);
            }
        }
        if (idle == null) {
            long byeDeadline = System.nanoTime() + byeWait.toNanos();
            while (!byes() && System.nanoTime() - byeDeadline < 0) Thread.sleep(10);
        }
        StressResult r = result(meter);
        if (idle == null) return r;
        List<String> problems = new ArrayList<>(r.problems());
        problems.addFirst(idle);
        return new StressResult(r.role(), r.lines(), r.average(), r.median(), r.rttCount(), r.rttP50Us(),
                r.rttMaxUs(), r.pairs(), problems);
    }

    /** System.nanoTime() of the last message any task received; meaningful once {@link #started}. */
    long lastHeard() {
        long last = Long.MIN_VALUE;
        for (Task t : tasks) if (t.heard && (last == Long.MIN_VALUE || t.lastHeard - last > 0)) last = t.lastHeard;
        return last == Long.MIN_VALUE ? System.nanoTime() : last;
    }

    /** True once some request arrived. */
    public boolean started() {
        return tasks.stream().anyMatch(t -> t.counters.rxMsgs.get() > 0);
    }

    /**
     * True when some task heard HELLO and every sender that said HELLO has said END. Tasks that heard nothing
     * (an active side with fewer tasks) do not hold the run: by the time the first sender says END, every
     * active task has said HELLO long before.
     */
    public boolean done() {
        return tasks.stream().anyMatch(t -> t.hellos > 0 || !t.joins.isEmpty()) && tasks.stream().allMatch(t -> t.open == 0);
    }

    /**
     * The senders this side heard without their HELLO (it started, or restarted, while they were running), one
     * line each: they are counted from their first request seen, and end the run with their END as the others.
     */
    public List<String> midRunJoins() {
        List<String> out = new ArrayList<>();
        for (Task t : tasks) out.addAll(t.joins);
        return out;
    }

    /** The tasks no sender said HELLO to. */
    public List<Integer> idleTasks() {
        return tasks.stream().filter(t -> t.hellos == 0 && t.joins.isEmpty()).map(t -> t.index).toList();
    }

    /** True when every task that heard HELLO got BYE. */
    public boolean byes() {
        return tasks.stream().allMatch(t -> t.bye || t.hellos == 0);
    }

    public TaskCounters[] counters() {
        return tasks.stream().map(t -> t.counters).toArray(TaskCounters[]::new);
    }

    /** The pairs whose END arrived, the requests' direction (the active side checks the acks). */
    public List<PairResult> pairs() {
        List<PairResult> out = new ArrayList<>();
        for (Task t : tasks) out.addAll(t.results);
        return out;
    }

    /** Errors met by the tasks' threads. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        for (Task t : tasks) out.addAll(t.problems);
        return out;
    }

    /**
     * The run seen from this side, with its own lines: the requests' pairs, and as problems the errors and the
     * senders that never said END.
     */
    public StressResult result(StressMeter meter) {
        List<String> problems = problems();
        boolean anyHello = tasks.stream().anyMatch(t -> t.hellos > 0 || !t.joins.isEmpty());
        problems.addAll(midRunJoins());
        if (!anyHello) problems.add("no HELLO arrived on any of the " + tasks.size() + " tasks");
        for (Task t : tasks) {
            if (t.open > 0) problems.add("task " + t.index + ": " + t.open + " sender(s) never sent END");
        }
        List<StressLine> lines = meter.lines();
        return new StressResult("passive", lines, StressMeter.average(lines, meter.total()), StressMeter.median(lines),
                0, Double.NaN, Double.NaN, pairs(), problems);
    }

    @Override
    public void close() {
        closed = true;
        for (Task t : tasks) t.socket.close();
        for (Task t : tasks) t.jobs.offer(Job.STOP);
        for (Thread th : threads) {
            try {
                th.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** An answer for the sending thread. */
    private record Job(byte type, InetSocketAddress to, long echo, long time, int size, long[] counts) {
        static final Job STOP = new Job((byte) 0, null, 0, 0, 0, null);
    }

    private final class Task {
        final int index;
        final RdsSocket socket;
        final InetSocketAddress local;
        final TaskCounters counters = new TaskCounters();
        final LinkedBlockingQueue<Job> jobs = new LinkedBlockingQueue<>();
        final Queue<String> problems = new ConcurrentLinkedQueue<>();
        final Queue<PairResult> results = new ConcurrentLinkedQueue<>();
        /** The senders heard without their HELLO, described. */
        final Queue<String> joins = new ConcurrentLinkedQueue<>();
        /** Receiving thread only. */
        final Map<InetSocketAddress, PairCheck> checks = new HashMap<>();
        volatile int hellos;
        /** Senders that said HELLO and not yet END. */
        volatile int open;
        volatile boolean bye;
        /** System.nanoTime() of the last message received, once {@link #heard}. */
        volatile long lastHeard;
        volatile boolean heard;

        Task(int index, RdsSocket socket, InetSocketAddress local) {
            this.index = index;
            this.socket = socket;
            this.local = local;
        }

        void receive() {
            byte[] in = new byte[StressConfig.MAX_MESSAGE];
            try {
                while (!closed) {
                    RdsSocket.Received r;
                    try {
                        r = socket.receive(in, 0, in.length);
                    } catch (ErrnoException e) {
                        if (StressSockets.retry(e)) continue;
                        throw e;
                    }
                    if (r == null || r.isCongestionUpdate()) continue;
                    InetSocketAddress from = r.sender();
                    lastHeard = System.nanoTime();
                    heard = true;
                    if (r.truncated() || !StressMessage.valid(in, r.length())) {
                        checks.computeIfAbsent(from, k -> new PairCheck()).corrupt();
                        continue;
                    }
                    switch (StressMessage.type(in)) {
                        case StressMessage.HELLO -> {
                            // a new run from this sender (or its HELLO repeated before our answer arrived)
                            checks.put(from, new PairCheck());
                            open = openCount(from, true);
                            hellos++;
                            jobs.add(new Job(StressMessage.HELLO_ACK, from, 0, 0, StressMessage.HEADER_BYTES, null));
                        }
                        case StressMessage.REQUEST -> {
                            if (!greeted.contains(from)) joined(from, StressMessage.seq(in));
                            PairCheck c = checks.computeIfAbsent(from, k -> new PairCheck());
                            c.accept(StressMessage.seq(in));
                            counters.received(r.length());
                            if ((StressMessage.flags(in) & StressMessage.FLAG_ONE_WAY) == 0) {
                                jobs.add(new Job(StressMessage.ACK, from, StressMessage.seq(in), StressMessage.time(in),
                                        Math.max(StressMessage.HEADER_BYTES, Math.min(StressConfig.MAX_MESSAGE,
                                                StressMessage.ackBytes(in))), null));
                            }
                        }
                        case StressMessage.END -> {
                            if (!greeted.contains(from)) joined(from, StressMessage.seq(in) + 1);
                            PairCheck c = checks.computeIfAbsent(from, k -> new PairCheck());
                            results.add(c.result(StressSockets.name(from), StressSockets.name(local), "requests",
                                    StressMessage.seq(in)));
                            jobs.add(new Job(StressMessage.END_ACK, from, 0, 0, StressMessage.END_ACK_BYTES,
                                    new long[] {c.received(), c.duplicated(), c.reordered(), c.corruptCount(),
                                            c.skipped() + 1}));
                            ended.add(from);
                            open = openCount(from, false);
                        }
                        case StressMessage.BYE -> bye = true;
                        default -> problems.add("task " + index + ": unexpected message type "
                                + StressMessage.type(in) + " from " + StressSockets.name(from));
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) problems.add("task " + index + " receiver: " + e);
            }
        }

        /**
         * Receiving thread only: {@code from} sent a request (or END) without a HELLO first, so this side joined its
         * run midway (it restarted): its messages are counted from {@code first}, and its END ends it.
         */
        private void joined(InetSocketAddress from, long first) {
            checks.put(from, PairCheck.joinedAt(first));
            open = openCount(from, true);
            joins.add("task " + index + ": joined mid-run: no HELLO from " + StressSockets.name(from)
                    + ", its first request seen was number " + first
                    + " (this side started after the active side); the requests before it are not counted");
        }

        /** Receiving thread only: senders that said HELLO (or joined mid-run), and those of them that said END since. */
        private final java.util.Set<InetSocketAddress> greeted = new java.util.HashSet<>();
        private final java.util.Set<InetSocketAddress> ended = new java.util.HashSet<>();

        private int openCount(InetSocketAddress from, boolean hello) {
            if (hello) {
                greeted.add(from);
                ended.remove(from);
            }
            int n = 0;
            for (InetSocketAddress a : greeted) if (!ended.contains(a)) n++;
            return n;
        }

        void send() {
            Map<InetSocketAddress, long[]> ackSeq = new HashMap<>();
            byte[] out = new byte[StressMessage.END_ACK_BYTES];
            ThreadLocalRandom.current().nextBytes(out);
            try {
                while (!closed) {
                    Job j = jobs.poll(StressSockets.POLL.toMillis(), TimeUnit.MILLISECONDS);
                    if (j == null) continue;
                    if (j == Job.STOP) return;
                    if (j.size() > out.length) {
                        out = new byte[j.size()];
                        ThreadLocalRandom.current().nextBytes(out);
                    }
                    long[] seq = ackSeq.computeIfAbsent(j.to(), k -> new long[1]);
                    long n;
                    switch (j.type()) {
                        case StressMessage.HELLO_ACK -> {
                            seq[0] = 0;
                            n = 0;
                        }
                        case StressMessage.ACK -> n = ++seq[0];
                        case StressMessage.END_ACK -> {
                            n = seq[0];
                            for (int i = 0; i < 4; i++) StressMessage.putCounter(out, i, j.counts()[i]);
                        }
                        default -> throw new IllegalStateException("job " + j.type());
                    }
                    long echo = j.type() == StressMessage.END_ACK ? j.counts()[4] : j.echo();
                    StressMessage.write(out, j.size(), j.type(), (byte) 0, incarnation, n, echo, j.time(), 0);
                    while (true) {
                        try {
                            socket.send(out, 0, j.size(), j.to());
                            break;
                        } catch (ErrnoException e) {
                            if (!StressSockets.retry(e) || closed) throw e;
                        }
                    }
                    if (j.type() == StressMessage.ACK) counters.sent(j.size());
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) problems.add("task " + index + " sender: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
