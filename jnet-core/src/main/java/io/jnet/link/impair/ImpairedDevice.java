package io.jnet.link.impair;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.TimerWheel;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * A device decorator that impairs the frames passing through it, like Linux's netem qdisc or smoltcp's
 * {@code phy::FaultInjector}: random loss, duplication, one-byte corruption, reordering, fixed delay with
 * jitter and a rate limit, configured independently for each {@link Direction} by an
 * {@link ImpairmentConfig}.
 *
 * <pre>{@code
 * ImpairmentConfig cfg = ImpairmentConfig.parse("loss=2%,dup=1%,reorder=1%,seed=7");
 * ImpairedDevice d = (ImpairedDevice) ns.interpose("veth0", dev -> new ImpairedDevice(dev, cfg, ns.timers()));
 * ...
 * System.out.println(d.report());
 * }</pre>
 *
 * <p>Decisions are drawn from one {@link SplittableRandom} stream per direction, both derived from the
 * seed, so the same seed and the same sequence of frames in a direction give the same decisions. Frames
 * that wait (delay, jitter, rate, reordering by time) are released by a timer on the given wheel, so they
 * follow the namespace's clock (a {@link io.jnet.stack.VirtualClock} in tests) and are delivered in
 * bottom-half context; a frame held for a number of later frames is released right after the last of
 * them, in the thread that passed it.
 *
 * <p>Every action is recorded in a bounded {@link ImpairmentLog} and counted ({@link #counts}); see
 * {@link #report()}. Name, MTU, MAC and device counters are the wrapped device's: frames the impairment
 * drops are not counted there, but in {@link #counts}.
 */
public final class ImpairedDevice extends ForwardingDevice {
    private final NetDevice inner;
    private final ImpairmentConfig config;
    private final ImpairmentLog log;
    private final DirectionImpairer egress;
    private final DirectionImpairer ingress;
    private volatile FrameReceiver receiver;
    private volatile boolean closed;

    /**
     * @param inner the device to wrap; this device takes its receiver slot
     * @param config what to do in each direction
     * @param timers the namespace's timer wheel ({@link NetNamespace#timers()}), which releases waiting frames
     */
    public ImpairedDevice(NetDevice inner, ImpairmentConfig config, TimerWheel timers) {
        super(inner);
        this.inner = inner;
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(timers, "timers");
        this.log = new ImpairmentLog(config.logCapacity());
        SplittableRandom root = new SplittableRandom(config.seed());
        this.egress = new DirectionImpairer(Direction.EGRESS, config.egress(), root.split(), timers, log, this::sendOn);
        this.ingress = new DirectionImpairer(Direction.INGRESS, config.ingress(), root.split(), timers, log, this::receiveOn);
    }

    /**
     * Wraps the device {@code devName} of {@code ns} (see {@link NetNamespace#interpose}) and returns the
     * impairment device now in front of it.
     */
    public static ImpairedDevice interpose(NetNamespace ns, String devName, ImpairmentConfig config) {
        return (ImpairedDevice) ns.interpose(devName, d -> new ImpairedDevice(d, config, ns.timers()));
    }

    public ImpairmentConfig config() { return config; }

    /** The event log (bounded; oldest events are overwritten). */
    public ImpairmentLog log() { return log; }

    /** The events still in the log, oldest first. */
    public List<ImpairmentEvent> events() { return log.events(); }

    /** A snapshot of one direction's counters. */
    public ImpairmentCounts counts(Direction direction) {
        return (direction == Direction.EGRESS ? egress : ingress).counts();
    }

    /**
     * A readable account: the seed and the logged events in order, then one summary line per direction, e.g.
     * <pre>
     * seed 7: egress frame 12 dropped; ingress frame 40 held 3 frames; egress frame 57 corrupted at byte 61
     * egress: 1000 frames, 985 delivered, 20 dropped, ...
     * ingress: 990 frames, ...
     * </pre>
     * When the log overflowed, a last line says how many earlier events are missing.
     */
    public String report() {
        List<ImpairmentEvent> events = log.events();
        StringJoiner line = new StringJoiner("; ", "seed " + config.seed() + ": ", "");
        line.setEmptyValue("seed " + config.seed() + ": no impairment events");
        for (ImpairmentEvent e : events) line.add(e.describe());
        StringBuilder out = new StringBuilder(line.toString()).append('\n');
        out.append("egress: ").append(egress.counts().summary()).append('\n');
        out.append("ingress: ").append(ingress.counts().summary()).append('\n');
        long lost = log.overwritten();
        if (lost > 0) out.append("(the log kept the last ").append(events.size()).append(" of ").append(log.recorded()).append(" events)\n");
        return out.toString();
    }


    /** Impairs the frame (egress) and passes what survives to the wrapped device, which then owns it. */
    @Override
    public void transmit(PacketBuffer frame) {
        if (closed) {
            inner.transmit(frame); // the closed wrapped device drops and counts it
            return;
        }
        egress.accept(frame);
    }

    /** Installs {@code receiver} behind the ingress impairment: it gets surviving frames, from this device. */
    @Override
    public void setReceiver(FrameReceiver receiver) {
        this.receiver = receiver;
        inner.setReceiver(receiver == null ? null : (device, frame) -> ingress.accept(frame));
    }

    private void sendOn(PacketBuffer frame) {
        try {
            inner.transmit(frame);
        } catch (RuntimeException e) { // a device must not throw; never let it reach a timer or a caller
            inner.stats().txErrors.increment();
        }
    }

    private void receiveOn(PacketBuffer frame) {
        FrameReceiver r = receiver;
        if (r == null) {
            inner.stats().rxDropped.increment();
            frame.release();
            return;
        }
        try {
            r.receive(this, frame);
        } catch (RuntimeException e) {
            inner.stats().rxErrors.increment();
        }
    }

    /** Discards held and queued frames (counted as flushed), stops the timers, closes the wrapped device. Idempotent. */
    @Override
    public void close() {
        closed = true;
        egress.close();
        ingress.close();
        inner.close();
    }

    @Override
    public String toString() {
        return "ImpairedDevice[" + inner + " " + config + "]";
    }
}
