package io.jnet.drill.play;

import io.jnet.drill.script.Code;
import io.jnet.drill.script.Command;
import io.jnet.drill.script.Direction;
import io.jnet.drill.script.Ecn;
import io.jnet.drill.script.Event;
import io.jnet.drill.script.EventTime;
import io.jnet.drill.script.Expr;
import io.jnet.drill.script.Packet;
import io.jnet.drill.script.Script;
import io.jnet.drill.script.Syscall;
import io.jnet.drill.script.TcpPacket;
import io.jnet.drill.target.LinuxErrno;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Target;
import io.jnet.wire.Tcp;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Plays a parsed script on a {@link Target}, as packetdrill plays one on a kernel.
 *
 * <p>Times (packetdrill's rules): an absolute time counts from the script's start; a relative one ({@code +0.1})
 * from the moment the previous event finished, except that consecutive inbound packets count from the previous
 * one's scheduled time (so processing does not add up); {@code *} is any time. A system call with
 * {@code ...end} blocks: the script goes on while it waits, and it must return at {@code end}. Each event must
 * happen within {@code tolerance_usecs} of its time (a range {@code a~b} widens that).
 *
 * <p>An outbound line takes the next packet the stack sent; it must match (flags, relative sequence and
 * acknowledgment numbers, length, window and options when given) or the script fails there. Several segments
 * that together cover one expected segment match it (a stack without segmentation offload sends MSS-sized
 * pieces of what a script expects whole). An inbound line is injected at its time.
 *
 * <p>Commands: {@code sysctl [-q] [-w] NAME=VALUE ...} sets the target's sysctls; any other shell line makes the
 * script unsupported. {@code %{ }%} code blocks are unsupported.
 */
public final class Player {
    /**
     * How to play.
     *
     * @param toleranceUsecs how far an event may be from its time (packetdrill's {@code --tolerance_usecs},
     *     default 4000)
     * @param defines {@code -D NAME=value} for the script's symbols
     * @param log where {@code --verbose} prints every event, or null
     */
    public record Options(long toleranceUsecs, Map<String, String> defines, PrintStream log) {
        public static Options defaults() { return new Options(4000, Map.of(), null); }
    }

    private final Target target;
    private final Options options;
    private final Flow flow;
    private final long start;
    private final SyscallRunner syscalls;
    private final Values values;
    private long tolerance;
    /** Script time (µs) at which the previous event was scheduled, and whether it was an inbound packet. */
    private long lastScheduled;
    /** Script time (µs) at which the previous event finished: a call's return, a packet's send, an injection. */
    private long lastEnd;
    /** Platform threads the calls run on, reused (starting one per call would add its start to the call's time). */
    private final java.util.concurrent.ExecutorService callThreads = java.util.concurrent.Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("drill-call-", 0).factory());
    private boolean lastInbound;
    /** The previous event's time as the script writes it (µs), for {@link #checkTimeOrder}. */
    private long writtenTime;
    /** The line being played, for an error that carries none. */
    private int currentLine;
    /** A blocking call in progress (at most one, as packetdrill). */
    private Pending pending;

    private record Pending(Syscall call, int line, long endMicros, CompletableFuture<CallResult> result) {}

    private Player(Target target, Options options) {
        this.target = target;
        this.options = options;
        this.tolerance = options.toleranceUsecs();
        this.flow = new Flow(0x2000_0000L + (System.nanoTime() & 0x0FFF_FFFFL));
        this.start = target.nowMicros();
        InetSocketAddress local = new InetSocketAddress(target.localAddress(), SyscallRunner.DEFAULT_PORT);
        InetSocketAddress remote = new InetSocketAddress(target.remoteAddress(), SyscallRunner.DEFAULT_PORT);
        this.values = new Values(options.defines());
        this.syscalls = new SyscallRunner(target.syscalls(), values, local, remote, flow);
    }

    /** Plays {@code script} on {@code target} (which the caller opened for it and closes after). */
    public static Verdict play(Script script, Target target, Options options) throws InterruptedException {
        return new Player(target, options).run(script);
    }

    private Verdict run(Script script) throws InterruptedException {
        try {
            applyScriptOptions(script);
            if (script.initCommand().isPresent()) command(script.initCommand().get());
            for (Event e : script.events()) event(e);
            finishPending(Long.MAX_VALUE);
            return Verdict.pass(scriptNow());
        } catch (Failure f) {
            return new Verdict(Verdict.Status.FAIL, f.line, f.getMessage(), scriptNow());
        } catch (PlayException p) {
            return new Verdict(Verdict.Status.FAIL, p.line(), p.getMessage(), scriptNow());
        } catch (Unsupported u) {
            return new Verdict(Verdict.Status.UNSUPPORTED, u.line(), u.getMessage(), scriptNow());
        } catch (RuntimeException e) {
            // a value the checks above missed: still the line being played, not an abort of the run
            String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
            return new Verdict(Verdict.Status.FAIL, currentLine, "cannot play this line: " + why, scriptNow());
        } finally {
            if (pending != null) pending.result().cancel(true);
            callThreads.shutdownNow();
        }
    }

    private void applyScriptOptions(Script script) throws Unsupported, PlayException {
        for (var o : script.options()) {
            String v = o.value().orElse("");
            switch (o.name()) {
                case "tolerance_usecs" -> tolerance = toleranceValue(v, o.pos().line());
                case "ip_version" -> {
                    if (!v.equals("ipv4")) throw new Unsupported(o.pos().line(), "--ip_version=" + v + " (jnet drill plays IPv4 only until IPv6)");
                }
                case "local_ip", "remote_ip", "gateway_ip", "netmask_ip", "mtu" -> throw new Unsupported(o.pos().line(),
                        "--" + o.name() + " inside a script (give it on the command line)");
                // the stack's TS val is not compared, so its clock's tick changes nothing the runner does
                case "tcp_ts_tick_usecs" -> { }
                // any other option could decide the result (a tolerance in percent, a port, non-fatal checks ...)
                default -> throw new Unsupported(o.pos().line(), "--" + o.name() + " inside a script (not honoured by jnet drill)");
            }
        }
    }

    /** The largest {@code --tolerance_usecs} taken: 100 s (a larger one would let any timing pass). */
    public static final long MAX_TOLERANCE_USECS = 100_000_000L;

    private static long toleranceValue(String v, int line) throws PlayException {
        long t;
        try {
            t = Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new PlayException(line, "--tolerance_usecs=" + v + " is not a number of microseconds");
        }
        if (t < 0 || t > MAX_TOLERANCE_USECS) {
            throw new PlayException(line, "--tolerance_usecs=" + v + " is out of range (0 to " + MAX_TOLERANCE_USECS + ")");
        }
        return t;
    }

    private long scriptNow() { return target.nowMicros() - start; }

    // ------------------------------------------------------------------ events

    private void event(Event e) throws InterruptedException, Failure, PlayException, Unsupported {
        int line = e.pos().line();
        currentLine = line;
        boolean inbound = e.action() instanceof Packet p && p.direction() == Direction.INBOUND;
        long base = lastInbound && inbound ? lastScheduled : lastEnd;
        long[] when = schedule(e.time(), base); // {start, end} in script µs, or null for *
        checkTimeOrder(e.time(), line);
        if (options.log() != null) options.log().printf("%8.3f %s%n", scriptNow() / 1e6, e.render());
        switch (e.action()) {
            case TcpPacket p when p.direction() == Direction.INBOUND -> inbound(p, when, line);
            case TcpPacket p -> outbound(p, when, line);
            case io.jnet.drill.script.IcmpPacket p when p.direction() == Direction.INBOUND -> {
                if (when == null) throw new Unsupported(line, "an inbound packet at any time (*)");
                if (!p.encapsulation().isEmpty()) throw new Unsupported(line, "encapsulated packets");
                waitFor(when);
                try {
                    target.inject(IcmpBuilder.build(p, flow, target.localAddress(), target.remoteAddress()));
                } catch (java.io.IOException x) {
                    throw new Failure(line, "could not inject: " + x.getMessage());
                }
            }
            case Packet p -> throw new Unsupported(line, "UDP lines and outbound ICMP are not supported by jnet drill yet: " + p.render());
            case Syscall s -> syscall(s, when, e.time(), base, line);
            case Command c -> {
                waitFor(when);
                command(c);
            }
            case Code c -> {
                waitFor(when);
                code(c);
            }
        }
        lastScheduled = when == null ? scriptNow() : when[0];
        if (!(e.action() instanceof Syscall) && !(e.action() instanceof TcpPacket p && p.direction() == Direction.OUTBOUND)) {
            lastEnd = scriptNow();
        }
        lastInbound = inbound;
    }

    /**
     * packetdrill refuses a script whose times go backwards: an absolute time before the previous event's time as
     * written (relative times add up from the script's times, not from when events happened, which on real time
     * run late).
     */
    private void checkTimeOrder(EventTime t, int line) throws PlayException {
        long at = switch (t) {
            case EventTime.Absolute a -> a.micros();
            case EventTime.AbsoluteRange r -> r.startMicros();
            case EventTime.Relative r -> writtenTime + r.micros();
            case EventTime.RelativeRange r -> writtenTime + r.startMicros();
            case EventTime.Any a -> writtenTime;
        };
        if ((t instanceof EventTime.Absolute || t instanceof EventTime.AbsoluteRange) && at < writtenTime) {
            throw new PlayException(line, "time goes backwards: " + secs(at) + " is before the previous event's " + secs(writtenTime));
        }
        writtenTime = at;
    }

    private static long[] schedule(EventTime t, long base) {
        return switch (t) {
            case EventTime.Absolute a -> new long[] {a.micros(), a.micros()};
            case EventTime.Relative r -> new long[] {base + r.micros(), base + r.micros()};
            case EventTime.AbsoluteRange r -> new long[] {r.startMicros(), r.endMicros()};
            case EventTime.RelativeRange r -> new long[] {base + r.startMicros(), base + r.endMicros()};
            case EventTime.Any a -> null;
        };
    }

    /** Waits until the event's time, checking on the way that a pending blocking call has not returned early. */
    private void waitFor(long[] when) throws InterruptedException, Failure, PlayException, Unsupported {
        if (when == null) return;
        long t = start + when[0];
        finishPending(when[0]);
        target.waitUntil(t);
        finishPending(when[0]);
    }

    private void inbound(TcpPacket p, long[] when, int line) throws InterruptedException, Failure, PlayException, Unsupported {
        if (when == null) throw new Unsupported(line, "an inbound packet at any time (*)");
        waitFor(when);
        SegmentSpec s = spec(p);
        if (p.ip().isPresent() && (p.ip().get().tos().isPresent() || p.ip().get().ttl().isPresent() || p.ip().get().flowLabel().isPresent())) {
            throw new Unsupported(line, "IP header fields on an inbound packet: " + p.ip().get().render());
        }
        if (p.ports().isPresent() && (s.flags() & Tcp.SYN) != 0 && (s.flags() & Tcp.ACK) == 0 && flow.localPort >= 0 && flow.remotePort >= 0
                && (p.ports().get().source() != flow.remotePort || p.ports().get().destination() != flow.localPort)) {
            throw new Unsupported(line, "a second connection (one connection per script)");
        }
        if (p.ports().isPresent()) {
            flow.remotePort = p.ports().get().source();
            flow.localPort = p.ports().get().destination();
        }
        // the runner's port, unless a connect or the line gave it: any first inbound packet picks one (packetdrill
        // takes an ephemeral port), a SYN or a segment to a socket that never connected (answered by a reset)
        if (flow.remotePort < 0) flow.remotePort = 40000 + (int) (flow.remoteIsn % 20000);
        try {
            target.inject(SegmentBuilder.build(s, flow, target.localAddress(), target.remoteAddress(), line));
        } catch (java.io.IOException e) {
            throw new Failure(line, "could not inject: " + e.getMessage());
        }
    }

    private void outbound(TcpPacket p, long[] when, int line) throws InterruptedException, Failure, PlayException, Unsupported {
        SegmentSpec want = spec(p);
        long deadline = when == null ? scriptNow() + 10_000_000 : when[1] + tolerance;
        finishPending(when == null ? scriptNow() : when[0]);
        while (true) {
            Target.Outbound o = target.nextOutbound(start + deadline);
            if (o == null) {
                throw new Failure(line, "expected " + p.render() + (when == null ? "" : " at " + secs(when[0]))
                        + ", nothing sent by " + secs(deadline));
            }
            SegmentMatcher.Actual a = SegmentMatcher.decode(o.packet(), flow, target.localAddress(), target.remoteAddress());
            long at = o.micros() - start;
            if (a == null) throw new Failure(line, "expected " + p.render() + ", the stack sent a packet that is not TCP to the peer at " + secs(at));
            if ((a.flags() & Tcp.SYN) != 0 && (SegmentMatcher.sourcePort(o.packet()) != flow.localPort
                    || SegmentMatcher.destinationPort(o.packet()) != flow.remotePort
                    || a.seq() != 0 && !((want.flags() & Tcp.SYN) != 0 && Flow.u32(want.seq()) == a.seq()))) {
                // a SYN with other ports, or another initial sequence number than the script states (a new
                // incarnation on the same ports states its ISN relative to the first): a second connection
                throw new Unsupported(line, "a second connection (one connection per script): the stack sent " + a.text() + " at " + secs(at));
            }
            List<String> ipDiff = ipDifferences(p, o.packet());
            List<String> diff = new ArrayList<>(SegmentMatcher.differences(want, a, o.packet(), flow));
            diff.addAll(ipDiff);
            if (when != null && at < when[0] - tolerance) {
                if (!diff.isEmpty() && !isPiece(want, a, o.packet(), ipDiff)) {
                    // not the expected packet sent early, but another one the script does not expect
                    throw new Failure(line, "unexpected packet " + a.text() + " at " + secs(at) + " (the next expected, at line "
                            + line + ", is " + p.render() + " at " + secs(when[0]) + ")");
                }
                throw new Failure(line, "expected " + p.render() + " at " + secs(when[0]) + ", sent " + secs(when[0] - at)
                        + " early: " + a.text() + " at " + secs(at));
            }
            if (diff.isEmpty()) {
                lastEnd = Math.max(lastEnd, at);
                SegmentMatcher.learnTimestamps(want, a, flow);
                if (options.log() != null) options.log().printf("%8.3f   sent %s%n", at / 1e6, a.text());
                return;
            }
            // a piece of the expected segment: the first bytes, the same flags but PSH/FIN saved for the last piece
            if (isPiece(want, a, o.packet(), ipDiff)) {
                SegmentMatcher.learnTimestamps(want, a, flow);
                if (options.log() != null) options.log().printf("%8.3f   sent %s (a piece)%n", at / 1e6, a.text());
                Integer urg = want.urgentPointer() == null ? null : want.urgentPointer() - a.length(); // from the next piece
                want = new SegmentSpec(want.direction(), want.flags(), want.seq() + a.length(), want.length() - a.length(),
                        want.ack(), want.window(), urg, want.options(), want.ecn());
                continue;
            }
            throw new Failure(line, "expected " + p.render() + (when == null ? "" : " at " + secs(when[0]))
                    + "\n    actual   " + a.text() + " at " + secs(at) + "\n    " + String.join("; ", diff));
        }
    }

    /** The IP header fields an outbound line states ({@code [tos 0x10]}, {@code [ttl 3]}) that the packet lacks. */
    private static List<String> ipDifferences(TcpPacket p, byte[] packet) throws Unsupported {
        if (p.ip().isEmpty()) return List.of();
        var ip = p.ip().get();
        if (ip.flowLabel().isPresent()) throw new Unsupported(p.pos().line(), "an IPv6 flow label");
        List<String> d = new ArrayList<>();
        if (ip.tos().isPresent() && (packet[1] & 0xff) != ip.tos().getAsInt()) {
            d.add("TOS 0x" + Integer.toHexString(packet[1] & 0xff) + ", expected 0x" + Integer.toHexString(ip.tos().getAsInt()));
        }
        if (ip.ttl().isPresent() && (packet[8] & 0xff) != ip.ttl().getAsInt()) {
            d.add("TTL " + (packet[8] & 0xff) + ", expected " + ip.ttl().getAsInt());
        }
        return d;
    }

    /** Whether {@code a} is the first piece of the expected segment (a stack without segmentation offload). */
    private boolean isPiece(SegmentSpec want, SegmentMatcher.Actual a, byte[] packet, List<String> ipDiff) {
        return a.seq() == Flow.u32(want.seq()) && a.length() > 0 && a.length() < want.length()
                && (a.flags() | Tcp.PSH | Tcp.FIN) == (want.flags() | Tcp.PSH | Tcp.FIN)
                && (a.flags() & ~want.flags()) == 0
                && ipDiff.isEmpty()
                && SegmentMatcher.differences(piece(want, a.length(), a.flags()), a, packet, flow).isEmpty();
    }

    private static SegmentSpec piece(SegmentSpec w, int len, int flags) {
        return new SegmentSpec(w.direction(), flags, w.seq(), len, w.ack(), w.window(), w.urgentPointer(), w.options(), w.ecn());
    }

    private void syscall(Syscall s, long[] when, EventTime time, long base, int line)
            throws InterruptedException, Failure, PlayException, Unsupported {
        if (when == null) throw new Unsupported(line, "a system call at any time (*)");
        SyscallRunner.Prepared call = syscalls.prepare(s);
        waitFor(when);
        if (pending != null) {
            // a blocking call due by now must have returned before the next call starts; one still due later would
            // make two calls at once, which packetdrill does not play either
            if (pending.endMicros() > when[0] + tolerance) throw new Unsupported(line, "a system call while another one blocks");
            finishPending(Long.MAX_VALUE);
        }
        CompletableFuture<CallResult> result = new CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Thread> callerThread = new CompletableFuture<>();
        callThreads.execute(() -> {
            callerThread.complete(Thread.currentThread());
            try {
                CallResult r = call.call();
                result.complete(new CallResult(r.value(), null, r.outputCheck(), target.nowMicros()));
            } catch (SyscallException e) {
                result.complete(new CallResult(-1, e, null, target.nowMicros()));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        Thread caller;
        try {
            caller = callerThread.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        if (s.blockingEndMicros().isPresent()) {
            long end = s.blockingEndMicros().getAsLong();
            long endAt = time instanceof EventTime.Relative || time instanceof EventTime.RelativeRange ? base + end : end;
            pending = new Pending(s, line, endAt, result);
            if (target.awaitCall(caller, result, Math.max(tolerance, 1000))) finishPending(endAt);
            lastEnd = scriptNow(); // the script goes on from the moment the call blocked
            return;
        }
        long calledAt = scriptNow();
        if (!target.awaitCall(caller, result, Math.max(tolerance, 1000))) {
            // on real time the target cannot always tell a call that blocked from one that is only slow
            long waited = scriptNow() - calledAt;
            throw new Failure(line, s.renderCall() + " called at " + secs(calledAt) + " had not returned"
                    + (waited > 0 ? String.format(java.util.Locale.ROOT, " %.1f ms later", waited / 1e3) : "")
                    + ": it blocked (a call that should block needs ...END in the script), or it was slower than"
                    + " the tolerance allows (on real time, e.g. a loaded machine)");
        }
        CallResult r = resultOf(result, s, line);
        lastEnd = r.micros() - start;
        check(s, r, line);
    }

    /** Checks a blocking call that has returned, or that should have by {@code scriptMicros}. */
    private void finishPending(long scriptMicros) throws InterruptedException, Failure, PlayException, Unsupported {
        Pending p = pending;
        if (p == null) return;
        if (!p.result().isDone()) {
            if (scriptMicros == Long.MAX_VALUE) {
                target.waitUntil(start + p.endMicros() + tolerance);
                if (!p.result().isDone()) waitReal(p);
            } else if (scriptMicros <= p.endMicros() + tolerance) {
                return; // still allowed to block
            } else {
                target.waitUntil(start + p.endMicros() + tolerance);
                if (!p.result().isDone()) waitReal(p);
            }
        }
        if (!p.result().isDone()) {
            throw new Failure(p.line(), p.call().renderCall() + " still blocked at " + secs(p.endMicros() + tolerance)
                    + ", expected to return at " + secs(p.endMicros()));
        }
        pending = null;
        CallResult r = resultOf(p.result(), p.call(), p.line());
        long at = r.micros() - start;
        if (Math.abs(at - p.endMicros()) > tolerance) {
            throw new Failure(p.line(), p.call().renderCall() + " returned at " + secs(at) + ", expected at " + secs(p.endMicros()));
        }
        check(p.call(), r, p.line());
    }

    /** A finished call's result; a value of its expected output that could not be evaluated is reported as such. */
    private static CallResult resultOf(CompletableFuture<CallResult> f, Syscall call, int line)
            throws InterruptedException, Failure, PlayException, Unsupported {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SyscallRunner.ScriptValueError v) v.rethrow();
            if (e.getCause() instanceof UnsupportedOperationException u) throw new Unsupported(line, call.renderCall() + ": " + u.getMessage());
            throw new Failure(line, call.renderCall() + ": the target failed: " + e.getCause());
        }
    }

    /** On real time a call may need a moment past the end of the allowed window to be seen returning. */
    private void waitReal(Pending p) throws InterruptedException {
        try {
            p.result().get(Math.max(tolerance, 1000), TimeUnit.MICROSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // reported by the caller
        }
    }

    private void check(Syscall s, CallResult r, int line) throws Failure, PlayException, Unsupported {
        Expr want = s.result();
        String call = s.renderCall();
        if (s.errno().isPresent()) {
            String name = s.errno().get().name();
            if (r.error() == null) throw new Failure(line, call + " = " + r.value() + ", expected -1 " + name);
            if (r.error().errno() != LinuxErrno.number(name)) {
                throw new Failure(line, call + " = -1 " + r.error().getMessage() + ", expected -1 " + name);
            }
            return;
        }
        if (r.error() != null) {
            if (want instanceof Expr.Ellipsis) return;
            throw new Failure(line, call + " = -1 " + r.error().getMessage() + ", expected " + want.render());
        }
        if (!(want instanceof Expr.Ellipsis)) {
            long w = values.number(want); // an unknown symbol is unsupported, a malformed value the script's fault
            if (w != r.value()) throw new Failure(line, call + " = " + r.value() + ", expected " + w);
        }
        if (r.outputCheck() != null) throw new Failure(line, call + ": " + r.outputCheck());
    }

    // ------------------------------------------------------------------ code blocks

    /**
     * A {@code %{ }%} block, evaluated at its time (packetdrill takes its tcp_info snapshot then, and runs the Python
     * at the end; the assertions see the same values) over the tcp_info of the last socket accepted or connected and
     * Linux's symbols.
     */
    private void code(Code c) throws Unsupported, Failure {
        int line = c.pos().line();
        byte[] info = syscalls.tcpInfoOfSocketUnderTest();
        CodeBlock.Result r;
        try {
            r = CodeBlock.evaluate(c.text(), name -> {
                if (name.startsWith("tcpi_")) {
                    // a field the runner's layout lacks is an unknown name (unsupported), one the stack lacks absent
                    if (!io.jnet.drill.target.TcpInfoLayout.has(name)) return null;
                    if (info == null || !io.jnet.drill.target.TcpInfoLayout.isPresent(name, info.length)) return null;
                    return io.jnet.drill.target.TcpInfoLayout.get(info, name);
                }
                String d = options.defines().get(name);
                if (d != null) {
                    try {
                        return Long.decode(d);
                    } catch (NumberFormatException e) {
                        return null;
                    }
                }
                var v = io.jnet.drill.target.LinuxConstants.value(name);
                return v.isPresent() ? v.getAsLong() : null;
            });
        } catch (CodeBlock.Unsupported u) {
            throw new Unsupported(line, u.getMessage());
        }
        if (!r.passed()) throw new Failure(line, r.message());
    }

    // ------------------------------------------------------------------ commands

    private void command(Command c) throws Unsupported, Failure {
        int line = c.pos().line();
        for (String part : c.commandLine().split(";|&&|\\n")) {
            String cmd = part.trim();
            if (cmd.isEmpty()) continue;
            if (DefaultsScript.is(cmd)) {
                for (String[] kv : DefaultsScript.SYSCTLS) {
                    try {
                        target.sysctl(kv[0], kv[1]);
                    } catch (UnsupportedOperationException | IllegalArgumentException e) {
                        // a setting this stack lacks (a congestion control, a mechanism): said, not fatal
                        if (options.log() != null) options.log().println("         defaults: " + kv[0] + "=" + kv[1] + " not applied: " + e.getMessage());
                    }
                }
                continue;
            }
            List<String> words = shellWords(cmd, line);
            if (!words.getFirst().equals("sysctl")) throw new Unsupported(line, "shell command `" + cmd + "` (only sysctl is played)");
            words.removeFirst();
            for (String w : words) {
                if (w.equals("-q") || w.equals("-w") || w.equals("-e")) continue;
                int eq = w.indexOf('=');
                if (eq <= 0) throw new Unsupported(line, "sysctl " + w + " (only NAME=VALUE is played)");
                String name = w.substring(0, eq).replace('/', '.'), value = w.substring(eq + 1);
                try {
                    target.sysctl(name, value);
                } catch (UnsupportedOperationException e) {
                    throw new Failure(line, "sysctl " + name + ": " + e.getMessage());
                } catch (IllegalArgumentException e) {
                    throw new Failure(line, "sysctl " + name + "=" + value + " refused: " + e.getMessage());
                }
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A command's words as a shell splits them: blanks separate, single and double quotes group. */
    static List<String> shellWords(String cmd, int line) throws Unsupported {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < cmd.length(); i++) {
            char c = cmd.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else w.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) words.add(w.toString());
                w.setLength(0);
                inWord = false;
            } else if (c == '$' || c == '`' || c == '\\' || c == '|' || c == '>' || c == '<' || c == '*') {
                throw new Unsupported(line, "shell command `" + cmd + "` (only plain sysctl lines are played)");
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (quote != 0) throw new Unsupported(line, "shell command `" + cmd + "` with an unclosed quote");
        if (inWord) words.add(w.toString());
        return words;
    }

    private SegmentSpec spec(TcpPacket p) throws Unsupported {
        int line = p.pos().line();
        if (!p.encapsulation().isEmpty()) throw new Unsupported(line, "encapsulated packets");
        int flags = 0;
        for (char c : p.flags().toCharArray()) {
            flags |= switch (c) {
                case 'S' -> Tcp.SYN;
                case 'F' -> Tcp.FIN;
                case 'R' -> Tcp.RST;
                case 'P' -> Tcp.PSH;
                case '.' -> Tcp.ACK;
                case 'U' -> Tcp.URG;
                case 'E' -> Tcp.ECE;
                case 'W' -> Tcp.CWR;
                case '-' -> 0;
                default -> throw new Unsupported(line, "TCP flag " + c);
            };
        }
        List<TcpOption> opts = null;
        if (!p.anyOptions()) {
            opts = new ArrayList<>();
            for (io.jnet.drill.script.TcpOption o : p.options()) opts.add(option(o, line));
        }
        int ecn = -1;
        if (p.ip().isPresent() && p.ip().get().ecn().isPresent()) {
            Ecn e = p.ip().get().ecn().get();
            ecn = switch (e) {
                case NO_ECN -> 0;
                case ECT1 -> 1;
                case ECT0 -> 2;
                case CE -> 3;
                case ECT01 -> throw new Unsupported(line, "[ect01]");
            };
        }
        return new SegmentSpec(p.direction(), flags, p.seqStart(), p.payloadLength(),
                p.ack().isPresent() ? p.ack().getAsLong() : null, p.window().isPresent() ? p.window().getAsInt() : null,
                p.urgentPointer().isPresent() ? p.urgentPointer().getAsInt() : null, opts, ecn);
    }

    private static TcpOption option(io.jnet.drill.script.TcpOption o, int line) throws Unsupported {
        return switch (o) {
            case io.jnet.drill.script.TcpOption.Nop n -> new TcpOption.Nop();
            case io.jnet.drill.script.TcpOption.Eol e -> new TcpOption.Eol();
            case io.jnet.drill.script.TcpOption.Mss m -> new TcpOption.Mss(m.bytes());
            case io.jnet.drill.script.TcpOption.WindowScale w -> new TcpOption.WindowScale(w.shiftCount());
            case io.jnet.drill.script.TcpOption.SackPermitted s -> new TcpOption.SackPermitted();
            case io.jnet.drill.script.TcpOption.Sack s -> {
                List<long[]> blocks = new ArrayList<>();
                for (var b : s.blocks()) blocks.add(new long[] {b.left(), b.right()});
                yield new TcpOption.Sack(blocks);
            }
            case io.jnet.drill.script.TcpOption.Timestamp t -> new TcpOption.Timestamps(t.val(), t.ecr());
            default -> throw new Unsupported(line, "TCP option " + o.render());
        };
    }

    private static String secs(long micros) { return String.format(java.util.Locale.ROOT, "%.6f", micros / 1e6); }

    /** The stack did not do what the script says. */
    static final class Failure extends Exception {
        final int line;

        Failure(int line, String message) {
            super(message, null, false, false);
            this.line = line;
        }
    }
}
