package io.jnet.ip;

import static io.jnet.ip.FragPackets.expectedPayload;
import static io.jnet.ip.FragPackets.fragment;
import static io.jnet.ip.FragPackets.payload;
import static io.jnet.ip.FragPackets.split;
import static io.jnet.ip.FragPackets.udpDatagram;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.Sysctls;
import io.jnet.stack.TimerWheel;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Udp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class Ipv4ReassemblerTest {
    private VirtualClock clock;
    private Sysctls sysctls;
    private Mib mib;
    private Ipv4Reassembler reasm;
    private final Ipv4Fragmenter fragmenter = new Ipv4Fragmenter(new Mib());
    private final List<PacketBuffer> timeExceeded = new ArrayList<>();

    @BeforeEach
    void setUp() {
        clock = new VirtualClock();
        TimerWheel wheel = new TimerWheel(clock, "t");
        wheel.setErrorHandler(e -> { throw new AssertionError("timer action threw", e); });
        clock.register(wheel);
        sysctls = new Sysctls();
        mib = new Mib();
        reasm = new Ipv4Reassembler(sysctls, mib, wheel);
        reasm.setTimeExceededSender(first -> {
            assertThat(first.isReleased()).isFalse();
            timeExceeded.add(first.copy());
        });
    }

    private long count(MibCounter c) { return mib.get(c); }

    /** Feeds fragments in the given order; returns every non-null result. */
    private List<PacketBuffer> feed(List<PacketBuffer> frags) {
        List<PacketBuffer> out = new ArrayList<>();
        for (PacketBuffer f : frags) {
            PacketBuffer d = reasm.accept(f);
            if (d != null) out.add(d);
        }
        return out;
    }

    private void assertIsOriginal(PacketBuffer datagram, byte[] original) {
        assertThat(datagram.headroom()).isEqualTo(PacketBuffer.DEFAULT_HEADROOM);
        assertThat(datagram.toBytes()).isEqualTo(original);
        byte[] b = datagram.array();
        int off = datagram.dataStart();
        assertThat(Ipv4.validate(b, off, datagram.length(), true)).isEqualTo(Ipv4.OK);
        assertThat(Ipv4.isFragment(b, off)).isFalse();
        assertThat(datagram.networkOffset()).isEqualTo(off);
        assertThat(datagram.transportOffset()).isEqualTo(off + Ipv4.headerLength(b, off));
        int udp = datagram.transportOffset();
        assertThat(Udp.verify(b, udp, Udp.length(b, udp), Ipv4.source(b, off), Ipv4.destination(b, off))).isTrue();
    }

    private void assertEmpty() {
        assertThat(reasm.queueCount()).isZero();
        assertThat(reasm.memoryBytes()).isZero();
    }

    private List<PacketBuffer> largestDatagramFragments(int id, byte[][] originalOut) {
        PacketBuffer p = udpDatagram(id, 65507, id);
        originalOut[0] = p.toBytes();
        return split(fragmenter, p, 1500);
    }

    @Test
    void reassemblesInOrder() {
        byte[][] original = new byte[1][];
        List<PacketBuffer> frags = largestDatagramFragments(1, original);
        assertThat(frags).hasSize(45);
        for (int i = 0; i < 44; i++) {
            assertThat(reasm.accept(frags.get(i))).isNull();
            assertThat(reasm.queueCount()).isEqualTo(1);
        }
        PacketBuffer d = reasm.accept(frags.get(44));
        assertIsOriginal(d, original[0]);
        assertThat(frags).allSatisfy(f -> assertThat(f.isReleased()).isTrue());
        assertEmpty();
        assertThat(count(MibCounter.IpReasmReqds)).isEqualTo(45);
        assertThat(count(MibCounter.IpReasmOKs)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isZero();
    }

    @Test
    void reassemblesInReverseOrder() {
        byte[][] original = new byte[1][];
        List<PacketBuffer> frags = largestDatagramFragments(2, original);
        Collections.reverse(frags);
        List<PacketBuffer> out = feed(frags);
        assertThat(out).hasSize(1);
        assertIsOriginal(out.get(0), original[0]);
        assertEmpty();
    }

    @Test
    void reassemblesInRandomOrder() {
        Random rnd = new Random(42);
        for (int round = 0; round < 20; round++) {
            byte[][] original = new byte[1][];
            List<PacketBuffer> frags = largestDatagramFragments(100 + round, original);
            Collections.shuffle(frags, rnd);
            List<PacketBuffer> out = feed(frags);
            assertThat(out).hasSize(1);
            assertIsOriginal(out.get(0), original[0]);
            assertEmpty();
        }
        assertThat(count(MibCounter.IpReasmOKs)).isEqualTo(20);
        assertThat(count(MibCounter.IpReasmFails)).isZero();
    }

    @Test
    void exactDuplicatesAreDroppedWithoutBreakingTheQueue() {
        Random rnd = new Random(7);
        byte[][] original = new byte[1][];
        List<PacketBuffer> frags = largestDatagramFragments(3, original);
        PacketBuffer completing = frags.remove(rnd.nextInt(frags.size()));
        List<PacketBuffer> withDuplicates = new ArrayList<>(frags);
        for (PacketBuffer f : frags) withDuplicates.add(f.copy());
        for (int i = 0; i < 10; i++) withDuplicates.add(frags.get(rnd.nextInt(frags.size())).copy());
        Collections.shuffle(withDuplicates, rnd);

        assertThat(feed(withDuplicates)).isEmpty();
        // one buffer per offset is held, every other copy was released at once
        assertThat(withDuplicates.stream().filter(PacketBuffer::isReleased).count())
                .isEqualTo(withDuplicates.size() - frags.size());
        assertThat(reasm.queueCount()).isEqualTo(1);
        assertThat(reasm.memoryBytes()).isEqualTo(
                frags.stream().mapToLong(PacketBuffer::truesize).sum() + Ipv4Reassembler.QUEUE_TRUESIZE);
        PacketBuffer d = reasm.accept(completing);
        assertIsOriginal(d, original[0]);
        assertEmpty();
        assertThat(withDuplicates).allSatisfy(f -> assertThat(f.isReleased()).isTrue());
        assertThat(count(MibCounter.IpReasmReqds)).isEqualTo(withDuplicates.size() + 1);
        assertThat(count(MibCounter.IpReasmOKs)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isZero();
        assertThat(count(MibCounter.IpExtReasmOverlaps)).isZero();
    }

    @Test
    void duplicateFinalFragmentIsHarmless() {
        assertThat(reasm.accept(fragment(4, 16, 8, false, 1))).isNull();
        assertThat(reasm.accept(fragment(4, 16, 8, false, 1))).isNull();
        assertThat(reasm.accept(fragment(4, 0, 16, true, 1))).isNotNull();
        assertThat(count(MibCounter.IpReasmFails)).isZero();
    }

    @Test
    void holesAreFilledFromTheMiddle() {
        assertThat(reasm.accept(fragment(5, 800, 800, true, 3))).isNull();
        assertThat(reasm.accept(fragment(5, 1600, 100, false, 3))).isNull();
        assertThat(reasm.accept(fragment(5, 8, 792, true, 3))).isNull();
        PacketBuffer d = reasm.accept(fragment(5, 0, 8, true, 3));
        assertThat(d).isNotNull();
        assertThat(payload(d)).isEqualTo(expectedPayload(1700, 3));
        assertThat(Ipv4.totalLength(d.array(), d.dataStart())).isEqualTo(1720);
        assertEmpty();
    }

    @Test
    void reassembledHeaderIsTheFirstFragmentsWithAllOptions() {
        PacketBuffer p = udpDatagram(6, 3000, 0, Ipv4FragmenterTest.OPTIONS, 9);
        byte[] original = p.toBytes();
        List<PacketBuffer> frags = split(fragmenter, p, 576);
        Collections.reverse(frags);
        List<PacketBuffer> out = feed(frags);
        assertThat(out).hasSize(1);
        assertIsOriginal(out.get(0), original);
    }

    @Test
    void firstFragmentFlagsOtherThanMfAreKept() {
        PacketBuffer first = fragment(7, 0, 8, true, 0);
        Ipv4.setFlagsFragment(first.array(), first.dataStart(), Ipv4.FLAG_DF | Ipv4.FLAG_MF);
        Ipv4.updateChecksum(first.array(), first.dataStart());
        reasm.accept(first);
        PacketBuffer d = reasm.accept(fragment(7, 8, 8, false, 0));
        assertThat(Ipv4.flagsFragment(d.array(), d.dataStart())).isEqualTo(Ipv4.FLAG_DF);
    }

    @Test
    void notAFragmentIsReturnedUnchanged() {
        PacketBuffer p = udpDatagram(8, 100, 1);
        assertThat(reasm.accept(p)).isSameAs(p);
        assertThat(p.isReleased()).isFalse();
        assertThat(count(MibCounter.IpReasmReqds)).isZero();
    }

    @Test
    void nonFinalFragmentWithPayloadNotAMultipleOf8IsDropped() {
        PacketBuffer f = fragment(9, 0, 100, true, 0);
        assertThat(reasm.accept(f)).isNull();
        assertThat(f.isReleased()).isTrue();
        assertThat(count(MibCounter.IpReasmReqds)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertEmpty();
        // a final fragment may have any length
        assertThat(reasm.accept(fragment(9, 8, 101, false, 0))).isNull();
        assertThat(reasm.queueCount()).isEqualTo(1);
    }

    @Test
    void zeroLengthFragmentsAreDropped() {
        assertThat(reasm.accept(fragment(10, 8, 0, true, 0))).isNull();
        assertThat(reasm.accept(fragment(10, 8, 0, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(2);
        assertEmpty();
    }

    @Test
    void fragmentEndingPastTheLargestDatagramIsDropped() {
        // 65512 + 8 = 65520 > 65535 - 20
        assertThat(reasm.accept(fragment(11, 65512, 8, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertEmpty();
        // the largest offset with a payload that still fits is held
        assertThat(reasm.accept(fragment(11, 65504, 11, false, 0))).isNull();
        assertThat(reasm.queueCount()).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
    }

    @Test
    void reassembledDatagramOver65535BytesFails() {
        // fragment 0 carries 40 option bytes: 60 + 65515 > 65535
        PacketBuffer first = fragment(12, 0, 8, true, 0);
        byte[] opts = new byte[40];
        opts[0] = (byte) 0x94; // router alert, then NOPs... padded with EOL
        opts[1] = 4;
        PacketBuffer withOptions = PacketBuffer.allocate(PacketBuffer.DEFAULT_HEADROOM, 68);
        int at = withOptions.put(68);
        byte[] b = withOptions.array();
        System.arraycopy(first.array(), first.dataStart(), b, at, 20);
        System.arraycopy(opts, 0, b, at + 20, 40);
        b[at] = 0x4F;
        Ipv4.setTotalLength(b, at, 68);
        Ipv4.updateChecksum(b, at);
        assertThat(reasm.accept(withOptions)).isNull();
        assertThat(reasm.accept(fragment(12, 8, 65504 - 8, true, 0))).isNull();
        assertThat(reasm.accept(fragment(12, 65504, 11, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmOKs)).isZero();
        assertThat(reasm.memoryBytes()).isEqualTo(Ipv4Reassembler.QUEUE_TRUESIZE);
    }

    @Test
    void invalidHeaderIsDropped() {
        PacketBuffer f = fragment(13, 0, 8, true, 0);
        f.array()[f.dataStart()] = 0x65;
        assertThat(reasm.accept(f)).isNull();
        assertThat(f.isReleased()).isTrue();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        PacketBuffer truncated = fragment(13, 0, 8, true, 0);
        truncated.trim(19);
        assertThat(reasm.accept(truncated)).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(2);
        assertEmpty();
    }

    @Test
    void dataPastTheFinalFragmentDropsTheDatagram() {
        assertThat(reasm.accept(fragment(14, 0, 8, true, 0))).isNull();
        assertThat(reasm.accept(fragment(14, 16, 8, false, 0))).isNull(); // length fixed at 24
        assertThat(reasm.accept(fragment(14, 24, 8, true, 0))).isNull(); // past it
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(count(MibCounter.IpExtReasmOverlaps)).isZero();
        // the rest of the datagram is dropped too
        assertThat(reasm.accept(fragment(14, 8, 8, true, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(2);
        assertThat(reasm.memoryBytes()).isEqualTo(Ipv4Reassembler.QUEUE_TRUESIZE);
    }

    @Test
    void finalFragmentEndingBeforeHeldDataDropsTheDatagram() {
        assertThat(reasm.accept(fragment(15, 32, 8, true, 0))).isNull();
        assertThat(reasm.accept(fragment(15, 8, 8, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(reasm.accept(fragment(15, 0, 8, true, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(2);
    }

    @Test
    void secondFinalFragmentWithAnotherLengthDropsTheDatagram() {
        assertThat(reasm.accept(fragment(16, 16, 8, false, 0))).isNull();
        assertThat(reasm.accept(fragment(16, 16, 16, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(reasm.accept(fragment(16, 0, 16, true, 0))).isNull();
        assertThat(count(MibCounter.IpReasmOKs)).isZero();
    }

    @Test
    void overlapDropsTheWholeDatagramUntilItExpires() {
        PacketBuffer a = fragment(17, 0, 16, true, 0);
        assertThat(reasm.accept(a)).isNull();
        PacketBuffer overlapping = fragment(17, 8, 16, true, 0);
        assertThat(reasm.accept(overlapping)).isNull();
        assertThat(a.isReleased()).isTrue();
        assertThat(overlapping.isReleased()).isTrue();
        assertThat(count(MibCounter.IpExtReasmOverlaps)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(reasm.queueCount()).isEqualTo(1);
        assertThat(reasm.memoryBytes()).isEqualTo(Ipv4Reassembler.QUEUE_TRUESIZE);

        // the pieces that would have completed it are dropped as well
        assertThat(reasm.accept(fragment(17, 0, 16, true, 0))).isNull();
        assertThat(reasm.accept(fragment(17, 16, 8, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(3);
        assertThat(count(MibCounter.IpReasmOKs)).isZero();

        // after ipfrag_time the mark is gone, silently
        clock.advance(Duration.ofSeconds(30));
        assertEmpty();
        assertThat(count(MibCounter.IpReasmTimeout)).isZero();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(3);
        assertThat(timeExceeded).isEmpty();

        // and the same id can be reassembled again
        reasm.accept(fragment(17, 0, 16, true, 0));
        assertThat(reasm.accept(fragment(17, 16, 8, false, 0))).isNotNull();
    }

    @Test
    void everyKindOfOverlapIsDetected() {
        int[][] cases = {
            // held [offset, end), new [offset, end)
            {0, 16, 8, 24}, // tail overlap
            {8, 24, 0, 16}, // head overlap
            {0, 32, 8, 16}, // contained
            {8, 16, 0, 32}, // containing
            {0, 16, 0, 8},  // same start, shorter
            {0, 8, 0, 16},  // same start, longer
        };
        int id = 100;
        for (int[] c : cases) {
            id++;
            reasm.accept(fragment(id, c[0], c[1] - c[0], true, 0));
            reasm.accept(fragment(id, c[2], c[3] - c[2], true, 0));
        }
        assertThat(count(MibCounter.IpExtReasmOverlaps)).isEqualTo(cases.length);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(cases.length);
        assertThat(reasm.memoryBytes()).isEqualTo((long) cases.length * Ipv4Reassembler.QUEUE_TRUESIZE);
    }

    @Test
    void adjacentFragmentsDoNotOverlap() {
        reasm.accept(fragment(18, 8, 8, true, 0));
        reasm.accept(fragment(18, 24, 8, false, 0));
        reasm.accept(fragment(18, 16, 8, true, 0));
        assertThat(reasm.accept(fragment(18, 0, 8, true, 0))).isNotNull();
        assertThat(count(MibCounter.IpExtReasmOverlaps)).isZero();
    }

    @Test
    void timeoutWithoutFirstFragmentFreesSilentlyButCounts() {
        PacketBuffer f = fragment(19, 8, 8, true, 0);
        reasm.accept(f);
        assertThat(reasm.memoryBytes()).isEqualTo(f.truesize() + Ipv4Reassembler.QUEUE_TRUESIZE);
        clock.advance(Duration.ofSeconds(29));
        assertThat(reasm.queueCount()).isEqualTo(1);
        assertThat(f.isReleased()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertEmpty();
        assertThat(f.isReleased()).isTrue();
        assertThat(count(MibCounter.IpReasmTimeout)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(timeExceeded).isEmpty();
    }

    @Test
    void timeoutAfterFirstFragmentCallsTheTimeExceededSender() {
        PacketBuffer first = fragment(20, 0, 16, true, 5);
        reasm.accept(first);
        reasm.accept(fragment(20, 24, 8, false, 5));
        clock.advance(Duration.ofSeconds(30));
        assertEmpty();
        assertThat(count(MibCounter.IpReasmTimeout)).isEqualTo(1);
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(1);
        assertThat(timeExceeded).hasSize(1);
        PacketBuffer seen = timeExceeded.get(0);
        assertThat(Ipv4.identification(seen.array(), seen.dataStart())).isEqualTo(20);
        assertThat(Ipv4.fragmentOffset(seen.array(), seen.dataStart())).isZero();
        assertThat(payload(seen)).isEqualTo(expectedPayload(16, 5));
        assertThat(first.isReleased()).isTrue();
    }

    @Test
    void timeoutFollowsIpfragTimeSetWhenTheQueueIsCreated() {
        sysctls.ipfragTime.set(5);
        reasm.accept(fragment(21, 0, 8, true, 0));
        clock.advance(Duration.ofMillis(4999));
        assertThat(reasm.queueCount()).isEqualTo(1);
        // fragments arriving later do not extend the lifetime (Linux arms the timer once)
        reasm.accept(fragment(21, 16, 8, true, 0));
        clock.advance(Duration.ofMillis(1));
        assertEmpty();
        assertThat(timeExceeded).hasSize(1);
    }

    @Test
    void completedDatagramsDoNotTimeOut() {
        reasm.accept(fragment(22, 0, 8, true, 0));
        assertThat(reasm.accept(fragment(22, 8, 8, false, 0))).isNotNull();
        clock.advance(Duration.ofSeconds(60));
        assertThat(count(MibCounter.IpReasmTimeout)).isZero();
        assertThat(count(MibCounter.IpReasmFails)).isZero();
        assertThat(timeExceeded).isEmpty();
    }

    @Test
    void timeoutWithoutSenderStillFrees() {
        reasm.setTimeExceededSender(null);
        PacketBuffer first = fragment(23, 0, 8, true, 0);
        reasm.accept(first);
        clock.advance(Duration.ofSeconds(30));
        assertEmpty();
        assertThat(first.isReleased()).isTrue();
        assertThat(count(MibCounter.IpReasmTimeout)).isEqualTo(1);
    }

    @Test
    void keyIncludesSourceDestinationProtocolAndId() {
        PacketBuffer a = fragment(24, 0, 8, true, 0);
        PacketBuffer otherSource = fragment(24, 8, 8, false, 0);
        Ipv4.setSource(otherSource.array(), otherSource.dataStart(), FragPackets.SRC + 1);
        PacketBuffer otherProto = fragment(24, 8, 8, false, 0);
        otherProto.array()[otherProto.dataStart() + 9] = Ipv4.PROTO_TCP;
        PacketBuffer otherDest = fragment(24, 8, 8, false, 0);
        Ipv4.setDestination(otherDest.array(), otherDest.dataStart(), FragPackets.DST + 1);
        PacketBuffer otherId = fragment(25, 8, 8, false, 0);
        for (PacketBuffer p : List.of(otherSource, otherProto, otherDest)) Ipv4.updateChecksum(p.array(), p.dataStart());
        assertThat(feed(List.of(a, otherSource, otherProto, otherDest, otherId))).isEmpty();
        assertThat(reasm.queueCount()).isEqualTo(5);
        assertThat(reasm.accept(fragment(24, 8, 8, false, 0))).isNotNull();
    }

    @Test
    void memoryLimitDropsNewFragmentsAndEvictsTheOldestQueues() {
        int high = 100_000;
        int low = 60_000;
        sysctls.ipfragHighThresh.set(high);
        sysctls.ipfragLowThresh.set(low);
        int fragTruesize = fragment(0, 0, 1480, true, 0).truesize();
        int datagrams = 200;
        List<Integer> droppedIds = new ArrayList<>();
        long evictionsSeen = 0;
        for (int id = 0; id < datagrams; id++) {
            long before = reasm.memoryBytes();
            int queuesBefore = reasm.queueCount();
            long failsBefore = count(MibCounter.IpReasmFails);
            PacketBuffer f = fragment(id, 0, 1480, true, 0);
            assertThat(reasm.accept(f)).isNull();
            long after = reasm.memoryBytes();
            assertThat(after).isLessThanOrEqualTo(high + fragTruesize + Ipv4Reassembler.QUEUE_TRUESIZE);
            if (before > high) {
                // dropped, and the oldest queues evicted down to the low threshold
                assertThat(f.isReleased()).isTrue();
                assertThat(after).isLessThanOrEqualTo(low);
                int evicted = queuesBefore - reasm.queueCount();
                assertThat(evicted).isPositive();
                assertThat(count(MibCounter.IpReasmFails) - failsBefore).isEqualTo(1 + evicted);
                evictionsSeen += evicted;
                droppedIds.add(id);
            } else {
                assertThat(f.isReleased()).isFalse();
                assertThat(after).isEqualTo(before + fragTruesize + Ipv4Reassembler.QUEUE_TRUESIZE);
            }
        }
        assertThat(droppedIds).isNotEmpty();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(droppedIds.size() + evictionsSeen);
        assertThat(reasm.queueCount() + droppedIds.size() + evictionsSeen).isEqualTo(datagrams);

        // the oldest were evicted: completing datagram 0 is no longer possible, the newest one still is
        assertThat(reasm.accept(fragment(0, 1480, 8, false, 0))).isNull();
        assertThat(reasm.accept(fragment(datagrams - 1, 1480, 8, false, 0))).isNotNull();
        // evictions send no time exceeded
        assertThat(timeExceeded).isEmpty();
        assertThat(count(MibCounter.IpReasmTimeout)).isZero();

        // everything left expires
        clock.advance(Duration.ofSeconds(30));
        assertEmpty();
    }

    @Test
    void zeroHighThresholdDisablesReassembly() {
        sysctls.ipfragLowThresh.set(0);
        sysctls.ipfragHighThresh.set(0);
        assertThat(reasm.accept(fragment(26, 0, 8, true, 0))).isNull();
        assertThat(reasm.accept(fragment(26, 8, 8, false, 0))).isNull();
        assertThat(count(MibCounter.IpReasmFails)).isEqualTo(2);
        assertEmpty();
    }

    @Test
    void clearFreesEverythingWithoutCounting() {
        PacketBuffer a = fragment(27, 0, 8, true, 0);
        PacketBuffer b = fragment(28, 8, 8, true, 0);
        reasm.accept(a);
        reasm.accept(b);
        reasm.clear();
        assertEmpty();
        assertThat(a.isReleased()).isTrue();
        assertThat(b.isReleased()).isTrue();
        clock.advance(Duration.ofSeconds(60));
        assertThat(count(MibCounter.IpReasmTimeout)).isZero();
        assertThat(count(MibCounter.IpReasmFails)).isZero();
        assertThat(timeExceeded).isEmpty();
    }
}
