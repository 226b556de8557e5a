package io.jnet.link.impair;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.link.NetDevice;
import io.jnet.stack.TimerWheel;
import io.jnet.stack.VirtualClock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each impairment on its own, over a fake inner device, on virtual time. */
class ImpairedDeviceTest {
    private static final int LEN = 100;

    private final VirtualClock clock = new VirtualClock();
    private final TimerWheel wheel = new TimerWheel(clock, "test");
    private final FakeDevice inner = new FakeDevice();
    private final List<PacketBuffer> received = new ArrayList<>();
    private final List<NetDevice> receivedFrom = new ArrayList<>();

    { clock.register(wheel); }

    @AfterEach
    void unregister() { clock.unregister(wheel); }

    private ImpairedDevice device(String spec) {
        ImpairedDevice d = new ImpairedDevice(inner, ImpairmentConfig.parse(spec), wheel);
        d.setReceiver((dev, frame) -> {
            receivedFrom.add(dev);
            received.add(frame);
        });
        return d;
    }

    private static void send(ImpairedDevice d, int from, int to) {
        for (int i = from; i <= to; i++) d.transmit(FakeDevice.frame(i, LEN));
    }

    private static List<Integer> range(int from, int to) {
        return IntStream.rangeClosed(from, to).boxed().toList();
    }

    @Test
    void noImpairmentPassesFramesUnchangedBothWays() {
        ImpairedDevice d = device("seed=1");
        send(d, 1, 5);
        assertThat(inner.transmittedTags()).containsExactly(1, 2, 3, 4, 5);
        assertThat(inner.transmitted.get(0)).isEqualTo(FakeDevice.frame(1, LEN).toBytes());
        inner.inject(FakeDevice.frame(9, LEN));
        assertThat(received).hasSize(1);
        assertThat(receivedFrom).containsExactly(d);
        assertThat(d.counts(Direction.EGRESS).frames()).isEqualTo(5);
        assertThat(d.counts(Direction.EGRESS).delivered()).isEqualTo(5);
        assertThat(d.counts(Direction.INGRESS).delivered()).isEqualTo(1);
        assertThat(d.events()).isEmpty();
        assertThat(d.name()).isEqualTo("fake0");
        assertThat(d.stats()).isSameAs(inner.stats);
    }

    @Test
    void lossDropsAndReleasesEveryFrameAtFullProbability() {
        ImpairedDevice d = device("egress.loss=100%,seed=1");
        List<PacketBuffer> sent = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            PacketBuffer f = FakeDevice.frame(i, LEN);
            sent.add(f);
            d.transmit(f);
        }
        assertThat(inner.transmitted).isEmpty();
        assertThat(sent).allMatch(PacketBuffer::isReleased);
        assertThat(d.counts(Direction.EGRESS).dropped()).isEqualTo(3);
        assertThat(d.events()).extracting(ImpairmentEvent::action).containsOnly(ImpairmentAction.DROP);
        assertThat(d.events()).extracting(ImpairmentEvent::frame).containsExactly(1L, 2L, 3L);
        // ingress is untouched
        inner.inject(FakeDevice.frame(4, LEN));
        assertThat(received).hasSize(1);
    }

    @Test
    void partialLossDropsExactlyTheLoggedFramesAtAboutTheRate() {
        ImpairedDevice d = device("loss=20%,seed=42");
        send(d, 1, 5000);
        Set<Integer> dropped = new HashSet<>();
        for (ImpairmentEvent e : d.events()) {
            assertThat(e.action()).isEqualTo(ImpairmentAction.DROP);
            assertThat(e.direction()).isEqualTo(Direction.EGRESS);
            dropped.add((int) e.frame());
        }
        List<Integer> expected = range(1, 5000).stream().filter(i -> !dropped.contains(i)).toList();
        assertThat(inner.transmittedTags()).isEqualTo(expected);
        assertThat(dropped.size()).isBetween(900, 1100); // 20% of 5000, fixed by the seed
        ImpairmentCounts c = d.counts(Direction.EGRESS);
        assertThat(c.dropped()).isEqualTo(dropped.size());
        assertThat(c.delivered() + c.dropped()).isEqualTo(5000);
    }

    @Test
    void duplicationSendsAnIdenticalCopyRightAfterTheFrame() {
        ImpairedDevice d = device("dup=100%,seed=1");
        send(d, 1, 3);
        assertThat(inner.transmittedTags()).containsExactly(1, 1, 2, 2, 3, 3);
        assertThat(inner.transmitted.get(0)).isEqualTo(inner.transmitted.get(1));
        assertThat(inner.transmittedBuffers.get(0)).isNotSameAs(inner.transmittedBuffers.get(1));
        assertThat(d.counts(Direction.EGRESS).duplicated()).isEqualTo(3);
        assertThat(d.counts(Direction.EGRESS).delivered()).isEqualTo(6);
        assertThat(d.report()).startsWith("seed 1: egress frame 1 duplicated; egress frame 2 duplicated; egress frame 3 duplicated\n");
    }

    @Test
    void corruptionFlipsOneByteBeyondTheEthernetHeaderAtTheLoggedOffset() {
        ImpairedDevice d = device("corrupt=100%,seed=5");
        byte[] original = FakeDevice.frame(0, LEN).toBytes();
        for (int i = 0; i < 200; i++) {
            PacketBuffer f = PacketBuffer.copyOf(original, 0, LEN, PacketBuffer.DEFAULT_HEADROOM);
            f.setChecksumUnnecessary(true);
            d.transmit(f);
        }
        List<ImpairmentEvent> events = d.events();
        assertThat(events).hasSize(200);
        Set<Integer> offsets = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            byte[] got = inner.transmitted.get(i);
            int offset = events.get(i).offset();
            assertThat(events.get(i).action()).isEqualTo(ImpairmentAction.CORRUPT);
            assertThat(offset).isBetween(14, LEN - 1);
            assertThat(got[offset]).isNotEqualTo(original[offset]);
            got[offset] = original[offset];
            assertThat(got).isEqualTo(original); // exactly one byte differs
            assertThat(inner.transmittedBuffers.get(i).checksumUnnecessary()).isFalse();
            offsets.add(offset);
        }
        assertThat(offsets.size()).isGreaterThan(40); // spread over the 86 possible offsets
        assertThat(d.report()).contains("egress frame 1 corrupted at byte " + events.get(0).offset());
    }

    @Test
    void corruptionLeavesHeaderOnlyFramesAlone() {
        ImpairedDevice d = device("corrupt=100%,seed=5");
        d.transmit(PacketBuffer.copyOf(new byte[14], 0, 14, 0));
        assertThat(inner.transmitted).containsExactly(new byte[14]);
        assertThat(d.counts(Direction.EGRESS).corrupted()).isZero();
    }

    @Test
    void reorderHoldsAFrameUntilGapLaterFramesArrivedAndReleasesItInline() {
        ImpairedDevice d = device("reorder=30%,reorder-gap=3,seed=11");
        send(d, 1, 300);
        Set<Long> held = new HashSet<>();
        for (ImpairmentEvent e : d.events()) {
            assertThat(e.action()).isEqualTo(ImpairmentAction.REORDER);
            assertThat(e.frames()).isEqualTo(3);
            held.add(e.frame());
        }
        assertThat(held.size()).isBetween(60, 120);
        // model: frame i passes on arrival unless held; a held frame h leaves right after frame h+3 arrived
        List<Integer> expected = new ArrayList<>();
        for (int i = 1; i <= 300; i++) {
            if (!held.contains((long) i)) expected.add(i);
            if (i > 3 && held.contains((long) (i - 3))) expected.add(i - 3);
        }
        assertThat(inner.transmittedTags()).isEqualTo(expected);
        ImpairmentCounts c = d.counts(Direction.EGRESS);
        long stillHeld = IntStream.rangeClosed(298, 300).filter(i -> held.contains((long) i)).count();
        assertThat(c.held()).isEqualTo(stillHeld);
        assertThat(c.delivered() + c.held()).isEqualTo(300);
        assertThat(d.report()).contains("egress frame " + held.stream().sorted().findFirst().orElseThrow() + " held 3 frames");
    }

    @Test
    void reorderByTimeReleasesTheHeldFrameFromATimer() {
        ImpairedDevice d = device("egress.reorder=100%,egress.reorder-gap=0,egress.reorder-delay=5ms,seed=1");
        send(d, 1, 1);
        clock.advanceMillis(2);
        send(d, 2, 2);
        assertThat(inner.transmitted).isEmpty();
        clock.advanceMillis(2);
        assertThat(inner.transmitted).isEmpty();
        clock.advanceMillis(1);
        assertThat(inner.transmittedTags()).containsExactly(1);
        clock.advanceMillis(2);
        assertThat(inner.transmittedTags()).containsExactly(1, 2);
        assertThat(d.events().get(0).describe()).isEqualTo("egress frame 1 held 5ms");
    }

    @Test
    void reorderEndsByWhicheverBoundComesFirst() {
        ImpairedDevice d = device("ingress.reorder=100%,ingress.reorder-gap=2,ingress.reorder-delay=10ms,seed=1");
        // every frame is held; frame 1 leaves when frame 3 arrives, long before its 10 ms are up
        inner.inject(FakeDevice.frame(1, LEN));
        inner.inject(FakeDevice.frame(2, LEN));
        assertThat(received).isEmpty();
        inner.inject(FakeDevice.frame(3, LEN));
        assertThat(received).hasSize(1);
        assertThat(FakeDevice.tag(received.get(0).toBytes())).isEqualTo(1);
        clock.advanceMillis(10); // frames 2 and 3 run out of time
        assertThat(received).hasSize(3);
        assertThat(receivedFrom).containsOnly(d);
        assertThat(d.events().get(0).describe()).isEqualTo("ingress frame 1 held 2 frames or 10ms");
    }

    /**
     * A clone in the delay queue keeps the shared data alive after its original is released; corrupting a clone
     * leaves the original's bytes alone (the impairment copies first); duplicating copies.
     */
    @Test
    void clonesInTheDelayQueueKeepTheirDataAndCorruptionNeverReachesTheOriginal() {
        ImpairedDevice d = device("delay=5ms,corrupt=100%,dup=100%,seed=1");
        int[] freed = new int[1];
        PacketBuffer o = FakeDevice.frame(1, LEN);
        o.setReleaseHook(b -> freed[0]++);
        byte[] before = o.toBytes();
        PacketBuffer c = o.cloneShared();
        d.transmit(c);
        o.release();
        assertThat(freed[0]).as("the clone's copy for corruption released the clone: data freed once").isEqualTo(1);
        clock.advanceMillis(5);
        assertThat(inner.transmitted).hasSize(2);
        assertThat(inner.transmitted.get(0)).isNotEqualTo(before);
        PacketBuffer o2 = FakeDevice.frame(2, LEN);
        byte[] before2 = o2.toBytes();
        int[] freed2 = new int[1];
        o2.setReleaseHook(b -> freed2[0]++);
        ImpairedDevice plain = device("egress.delay=5ms,seed=1");
        PacketBuffer c2 = o2.cloneShared();
        plain.transmit(c2);
        o2.release();
        assertThat(freed2[0]).as("the clone waits in the delay queue holding the data").isZero();
        clock.advanceMillis(5);
        assertThat(inner.transmittedBuffers.getLast()).isSameAs(c2);
        assertThat(inner.transmitted.getLast()).isEqualTo(before2);
        c2.release();
        assertThat(freed2[0]).isEqualTo(1);
        assertThat(before).isEqualTo(FakeDevice.frame(1, LEN).toBytes());
    }

    @Test
    void delayedFrameAppearsOnlyAfterTheClockAdvanced() {
        ImpairedDevice d = device("delay=5ms,seed=1");
        send(d, 1, 3);
        assertThat(inner.transmitted).isEmpty();
        clock.advanceNanos(4_999_999);
        assertThat(inner.transmitted).isEmpty();
        clock.advanceNanos(1);
        assertThat(inner.transmittedTags()).containsExactly(1, 2, 3);
        assertThat(d.counts(Direction.EGRESS).delayed()).isEqualTo(3);
        assertThat(d.events()).extracting(ImpairmentEvent::nanos).containsOnly(5_000_000L);
        // unprefixed: ingress is delayed too
        inner.inject(FakeDevice.frame(7, LEN));
        assertThat(received).isEmpty();
        clock.advanceMillis(5);
        assertThat(received).hasSize(1);
    }

    @Test
    void jitterDrawsDelaysFromDelayPlusOrMinusJitter() {
        ImpairedDevice d = device("egress.delay=5ms,egress.jitter=2ms,seed=3");
        for (int i = 1; i <= 200; i++) {
            send(d, i, i);
            clock.advanceMillis(10); // far apart: no frame waits behind another
        }
        assertThat(inner.transmittedTags()).isEqualTo(range(1, 200));
        long min = Long.MAX_VALUE, max = 0;
        for (ImpairmentEvent e : d.events()) {
            assertThat(e.nanos()).isBetween(3_000_000L, 7_000_000L);
            min = Math.min(min, e.nanos());
            max = Math.max(max, e.nanos());
        }
        assertThat(min).isLessThan(3_200_000L);
        assertThat(max).isGreaterThan(6_800_000L);
    }

    @Test
    void jitterKeepsArrivalOrder() {
        ImpairedDevice d = device("egress.delay=5ms,egress.jitter=2ms,seed=3");
        for (int i = 1; i <= 100; i++) {
            send(d, i, i);
            clock.advanceNanos(100_000); // 0.1 ms apart: jitter alone would reorder them
        }
        clock.advanceMillis(10);
        assertThat(inner.transmittedTags()).isEqualTo(range(1, 100));
        for (ImpairmentEvent e : d.events()) assertThat(e.nanos()).isBetween(3_000_000L, 7_000_000L);
    }

    @Test
    void rateLimitSerialisesFramesAtTheLinkRate() {
        ImpairedDevice d = device("egress.rate=800kbit,seed=1"); // 100 bytes take 1 ms
        send(d, 1, 3);
        assertThat(inner.transmitted).isEmpty();
        clock.advanceMillis(1);
        assertThat(inner.transmittedTags()).containsExactly(1);
        clock.advanceMillis(1);
        assertThat(inner.transmittedTags()).containsExactly(1, 2);
        clock.advanceMillis(5);
        assertThat(inner.transmittedTags()).containsExactly(1, 2, 3);
        // the link was idle: the next frame again needs its 1 ms
        send(d, 4, 4);
        assertThat(inner.transmitted).hasSize(3);
        clock.advanceMillis(1);
        assertThat(inner.transmitted).hasSize(4);
    }

    @Test
    void queueLimitDropsFramesBeyondIt() {
        ImpairedDevice d = device("delay=1ms,limit=2,seed=1");
        send(d, 1, 4);
        clock.advanceMillis(1);
        assertThat(inner.transmittedTags()).containsExactly(1, 2);
        assertThat(d.counts(Direction.EGRESS).overlimit()).isEqualTo(2);
        assertThat(d.report()).contains("egress frame 3 dropped (queue full); egress frame 4 dropped (queue full)");
    }

    @Test
    void closeDiscardsWaitingFramesAndStopsTheTimers() {
        ImpairedDevice d = device("egress.delay=1ms,ingress.reorder=100%,ingress.reorder-gap=5,seed=1");
        List<PacketBuffer> sent = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            PacketBuffer f = FakeDevice.frame(i, LEN);
            sent.add(f);
            d.transmit(f);
        }
        PacketBuffer in = FakeDevice.frame(9, LEN);
        inner.inject(in);
        d.close();
        assertThat(inner.closed).isTrue();
        assertThat(sent).allMatch(PacketBuffer::isReleased);
        assertThat(in.isReleased()).isTrue();
        assertThat(d.counts(Direction.EGRESS).flushed()).isEqualTo(3);
        assertThat(d.counts(Direction.INGRESS).flushed()).isEqualTo(1);
        assertThat(d.counts(Direction.EGRESS).held()).isZero();
        clock.advanceMillis(5);
        assertThat(inner.transmitted).isEmpty();
        assertThat(received).isEmpty();
        d.close(); // idempotent
        assertThat(d.report()).contains("egress frame 1 discarded at close").contains("ingress frame 1 discarded at close");
    }

    @Test
    void sameSeedGivesTheSameDecisionsAndReport() {
        String spec = "loss=5%,dup=3%,corrupt=2%,reorder=4%,reorder-gap=2,delay=1ms,jitter=500us,seed=77,log=100000";
        Run a = run(spec);
        Run b = run(spec);
        assertThat(a.report).isEqualTo(b.report);
        assertThat(a.out).hasSameSizeAs(b.out);
        for (int i = 0; i < a.out.size(); i++) assertThat(a.out.get(i)).isEqualTo(b.out.get(i));
        assertThat(a.report).startsWith("seed 77: ").contains("dropped").contains("duplicated").contains("corrupted")
                .contains("held 2 frames").contains("delayed");
        Run c = run(spec.replace("seed=77", "seed=78"));
        assertThat(c.report).isNotEqualTo(a.report);
    }

    private record Run(String report, List<byte[]> out) {}

    private static Run run(String spec) {
        VirtualClock clock = new VirtualClock();
        TimerWheel wheel = new TimerWheel(clock, "det");
        clock.register(wheel);
        FakeDevice inner = new FakeDevice();
        List<byte[]> in = new ArrayList<>();
        ImpairedDevice d = new ImpairedDevice(inner, ImpairmentConfig.parse(spec), wheel);
        d.setReceiver((dev, f) -> in.add(f.toBytes()));
        for (int i = 1; i <= 2000; i++) {
            d.transmit(FakeDevice.frame(i, LEN + i % 50));
            inner.inject(FakeDevice.frame(-i, LEN));
            clock.advanceNanos(100_000);
        }
        clock.advanceMillis(10);
        List<byte[]> out = new ArrayList<>(inner.transmitted);
        out.addAll(in);
        return new Run(d.report(), out);
    }

    @Test
    void logKeepsTheNewestEventsAndSaysSo() {
        ImpairedDevice d = device("loss=100%,log=3,seed=1");
        send(d, 1, 5);
        assertThat(d.events()).extracting(ImpairmentEvent::frame).containsExactly(3L, 4L, 5L);
        assertThat(d.log().recorded()).isEqualTo(5);
        assertThat(d.log().overwritten()).isEqualTo(2);
        assertThat(d.report()).isEqualTo("""
                seed 1: egress frame 3 dropped; egress frame 4 dropped; egress frame 5 dropped
                egress: 5 frames, 0 delivered, 5 dropped, 0 over limit, 0 duplicated, 0 corrupted, 0 reordered, 0 delayed, 0 flushed, 0 held
                ingress: 0 frames, 0 delivered, 0 dropped, 0 over limit, 0 duplicated, 0 corrupted, 0 reordered, 0 delayed, 0 flushed, 0 held
                (the log kept the last 3 of 5 events)
                """);
    }

    @Test
    void eventsCarryTheClockTime() {
        ImpairedDevice d = device("loss=100%,seed=1");
        long t0 = clock.nanoTime();
        send(d, 1, 1);
        clock.advanceMillis(3);
        send(d, 2, 2);
        assertThat(d.events()).extracting(ImpairmentEvent::timeNanos).containsExactly(t0, t0 + 3_000_000);
        assertThat(Arrays.asList(ImpairmentAction.values())).contains(ImpairmentAction.CORRUPT);
    }
}
