package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.ForwardingDevice;
import io.jnet.link.FrameReceiver;
import io.jnet.link.NetDevice;
import java.io.IOException;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * A device decorator that captures every frame in both directions to a {@link PcapWriter}, like
 * tcpdump on an interface (gVisor {@code link/sniffer}, smoltcp {@code phy::PcapWriter}). Transmitted
 * frames are written before they are handed to the wrapped device (which owns them afterwards);
 * received frames are written before they are handed to the receiver, which sees this sniffer as the
 * device. Everything else (name, MTU, MAC, counters) is the wrapped device's, and so is the GSO limit:
 * a sniffer only watches, so segments the wrapped device takes whole (veth's 64 KiB) are captured whole,
 * as Linux's packet taps see a GSO segment before it is split.
 *
 * <p>Timestamps are wall-clock nanoseconds since the Unix epoch, from {@link #WALL_CLOCK_NANOS} unless
 * another source is given (a test on virtual time can map its clock onto a fixed epoch).
 *
 * <p>A {@link FrameFinisher}, when set, gets a copy of each frame to complete (e.g. fill in checksums
 * that loopback skips) and the copy is captured. Capture failures (a closed writer, a full disk) are
 * counted in {@link #captureErrors()} and never stop a frame.
 */
public final class PcapSniffer extends ForwardingDevice {

    /** Wall-clock time in nanoseconds since the Unix epoch (microsecond resolution on Linux). */
    public static final LongSupplier WALL_CLOCK_NANOS = () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };

    private static final System.Logger LOG = System.getLogger(PcapSniffer.class.getName());

    private final NetDevice inner;
    private final PcapWriter writer;
    private final LongSupplier epochNanos;
    private final boolean closeWriter;
    private volatile FrameFinisher finisher;
    private final LongAdder captured = new LongAdder();
    private final LongAdder captureErrors = new LongAdder();
    private final LongAdder finisherErrors = new LongAdder();

    /**
     * Captures {@code inner}'s frames to {@code writer} with wall-clock timestamps; {@link #close()}
     * closes both.
     */
    public PcapSniffer(NetDevice inner, PcapWriter writer) {
        this(inner, writer, WALL_CLOCK_NANOS, true);
    }

    /**
     * @param inner the device to wrap; the sniffer takes its receiver slot
     * @param writer where frames go; may be shared by several sniffers
     * @param epochNanos timestamp source, nanoseconds since the Unix epoch
     * @param closeWriter whether {@link #close()} closes the writer (otherwise it only flushes it)
     */
    public PcapSniffer(NetDevice inner, PcapWriter writer, LongSupplier epochNanos, boolean closeWriter) {
        super(inner);
        this.inner = inner;
        this.writer = Objects.requireNonNull(writer, "writer");
        this.epochNanos = Objects.requireNonNull(epochNanos, "epochNanos");
        this.closeWriter = closeWriter;
    }

    /**
     * Sets (or clears, with null) the finisher applied to the captured copy of each frame. Without one,
     * frames whose transport checksum was left out (loopback offload) are completed by
     * {@link ChecksumFinisher} so the capture always holds valid frames.
     */
    public void setFrameFinisher(FrameFinisher finisher) {
        this.finisher = finisher;
    }

    /** The writer frames go to. */
    public PcapWriter writer() { return writer; }

    /** Frames written to the capture (both directions). */
    public long captured() { return captured.sum(); }

    /** Frames that could not be written (writer closed or failing). */
    public long captureErrors() { return captureErrors.sum(); }

    /** Frames whose finisher threw; they were captured unfinished. */
    public long finisherErrors() { return finisherErrors.sum(); }


    /** The wrapped device's GSO limit (bytes; 0 when frames must fit the MTU): capturing alters nothing. */
    @Override
    public int gsoMaxSize() { return inner.gsoMaxSize(); }

    /**
     * The wrapped device's: a frame whose transport checksum was left out is captured through a copy that
     * the finisher completes, so the wire the capture shows is a real one and the stack may still leave it out.
     */
    @Override
    public boolean checksumOffload() { return inner.checksumOffload(); }

    /**
     * The wrapped device's: the writer reads data carried by reference through its region, so capturing does not
     * need the frame linear (Linux's packet taps see an skb's fragments as they are).
     */
    @Override
    public boolean scatterGather() { return inner.scatterGather(); }

    /** Captures the frame, then passes it (and its ownership) to the wrapped device. */
    @Override
    public void transmit(PacketBuffer frame) {
        capture(frame);
        inner.transmit(frame);
    }

    /**
     * Installs {@code receiver} behind the capture: it gets each frame after it was written, from this
     * device. On a loopback device only transmitted frames are written (each frame once).
     */
    @Override
    public void setReceiver(FrameReceiver receiver) {
        if (receiver == null) {
            inner.setReceiver(null);
            return;
        }
        // on loopback every frame is both sent and received: capture it once, as tcpdump -i lo shows it
        boolean captureRx = !inner.isLoopback();
        inner.setReceiver((device, frame) -> {
            if (captureRx) capture(frame);
            receiver.receive(this, frame);
        });
    }

    private void capture(PacketBuffer frame) {
        try {
            long ts = epochNanos.getAsLong();
            FrameFinisher f = finisher;
            if (f == null && frame.checksumPartial()) f = ChecksumFinisher.INSTANCE;
            if (f == null) {
                writer.write(ts, frame); // the writer copies the bytes before returning
            } else {
                PacketBuffer copy = frame.copy();
                try {
                    f.finish(copy);
                } catch (RuntimeException e) {
                    finisherErrors.increment();
                    LOG.log(System.Logger.Level.DEBUG, () -> name() + ": frame finisher threw", e);
                }
                writer.write(ts, copy);
                copy.release();
            }
            captured.increment();
        } catch (IOException | RuntimeException e) {
            captureErrors.increment();
            LOG.log(System.Logger.Level.DEBUG, () -> name() + ": capture failed", e);
        }
    }

    /** Closes the wrapped device, then closes (or flushes) the writer. Idempotent. */
    @Override
    public void close() {
        inner.close();
        try {
            if (closeWriter) writer.close();
            else writer.flush();
        } catch (IOException e) {
            captureErrors.increment();
            LOG.log(System.Logger.Level.WARNING, name() + ": closing the capture failed", e);
        }
    }

    @Override
    public String toString() {
        return "PcapSniffer[" + inner + "]";
    }
}
