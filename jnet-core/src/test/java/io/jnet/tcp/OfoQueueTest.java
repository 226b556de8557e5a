package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.buffer.PacketBuffer;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The out-of-order queue on its own: the tree's shape and order, and its merge rules against a model. */
class OfoQueueTest {
    /** Near the top of sequence space, so that every test also crosses 2^32. */
    static final int BASE = 0xFFFF_F000;

    static byte data(int offset) { return (byte) (offset * 131 + 3); }

    /** A buffer holding stream bytes [from, to) (offsets from BASE), with {@code tailroom} spare bytes. */
    static PacketBuffer segment(int from, int to, int tailroom) {
        PacketBuffer b = PacketBuffer.allocate(64, to - from + tailroom);
        for (int i = from; i < to; i++) b.array()[b.put(1)] = data(i);
        b.seq = BASE + from;
        return b;
    }

    /** Checks the tree's links, heap order of priorities and in-order sequence; returns the buffers in order. */
    static List<PacketBuffer> validate(OfoQueue q) {
        List<PacketBuffer> inOrder = new ArrayList<>();
        for (PacketBuffer b = q.first(); b != null; b = OfoQueue.next(b)) {
            if (b.treeLeft != null) {
                assertThat(b.treeLeft.treeParent).isSameAs(b);
                assertThat(b.treeLeft.treePriority).isLessThanOrEqualTo(b.treePriority);
            }
            if (b.treeRight != null) {
                assertThat(b.treeRight.treeParent).isSameAs(b);
                assertThat(b.treeRight.treePriority).isLessThanOrEqualTo(b.treePriority);
            }
            if (!inOrder.isEmpty()) {
                PacketBuffer prev = inOrder.getLast();
                assertThat(OfoQueue.previous(b)).isSameAs(prev);
                assertThat(Tcp.seqLeq(prev.endSeq, b.seq)).as("disjoint and in order").isTrue();
            }
            inOrder.add(b);
        }
        assertThat(inOrder).hasSize(q.size());
        assertThat(q.last()).isSameAs(inOrder.isEmpty() ? null : inOrder.getLast());
        assertThat(q.bytes()).isEqualTo(inOrder.stream().mapToLong(PacketBuffer::truesize).sum());
        return inOrder;
    }

    @Test
    void insertRemoveAndFloorKeepTheTreeOrderedWhateverTheOrder() {
        OfoQueue q = new OfoQueue();
        SplittableRandom r = new SplittableRandom(1);
        TreeMap<Integer, PacketBuffer> model = new TreeMap<>();
        for (int step = 0; step < 20_000; step++) {
            int off = r.nextInt(5000) * 4;
            if (model.containsKey(off) && r.nextBoolean()) {
                q.remove(model.remove(off));
            } else if (!model.containsKey(off)) {
                PacketBuffer b = segment(off, off + 2, 0);
                b.endSeq = b.seq + 2;
                q.insert(b);
                model.put(off, b);
            }
            if (step % 1000 == 0) {
                assertThat(validate(q)).containsExactlyElementsOf(model.values());
                int probe = r.nextInt(20_000);
                var floor = model.floorEntry(probe);
                assertThat(q.floor(BASE + probe)).isSameAs(floor == null ? null : floor.getValue());
            }
        }
        assertThat(validate(q)).containsExactlyElementsOf(model.values());
        while (!model.isEmpty()) assertThat(q.pollFirst()).isSameAs(model.pollFirstEntry().getValue());
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.bytes()).isZero();
    }

    @Test
    void aDescendingFloodBuildsABalancedTree() {
        OfoQueue q = new OfoQueue();
        for (int i = 100_000; i > 0; i--) {
            PacketBuffer b = segment(2 * i, 2 * i + 1, 0);
            assertThat(q.queue(b, false, new Mib())).isTrue();
        }
        int depth = 0;
        for (PacketBuffer b = q.first(); b != null; b = OfoQueue.next(b)) {
            int d = 0;
            for (PacketBuffer p = b; p.treeParent != null; p = p.treeParent) d++;
            depth = Math.max(depth, d);
        }
        // a treap of n nodes is about 2.99 log2 n deep at most, in all likelihood; a list would be 100,000
        assertThat(depth).isLessThan(100);
    }

    /**
     * Random segments (overlapping, duplicate, adjacent, some with tailroom to coalesce into) queued one by
     * one: the queue always holds exactly the bytes sent, each once, with the right contents.
     */
    @Test
    void randomSegmentsLeaveEveryByteQueuedOnceWithItsContents() {
        SplittableRandom r = new SplittableRandom(7);
        for (int round = 0; round < 50; round++) {
            OfoQueue q = new OfoQueue();
            Mib mib = new Mib();
            BitSet sent = new BitSet();
            for (int s = 0; s < 300; s++) {
                int from = r.nextInt(4000);
                int to = from + 1 + r.nextInt(r.nextBoolean() ? 8 : 200);
                PacketBuffer b = segment(from, to, r.nextInt(4) == 0 ? 64 : 0);
                if (!q.queue(b, false, mib)) b.release();
                sent.set(from, to);
                List<PacketBuffer> bufs = validate(q);
                if (s % 50 == 0 || s == 299) {
                    BitSet held = new BitSet();
                    for (PacketBuffer p : bufs) {
                        int off = p.seq - BASE;
                        assertThat(p.length()).isEqualTo(p.endSeq - p.seq);
                        for (int i = 0; i < p.length(); i++) {
                            assertThat(p.array()[p.dataStart() + i]).as("byte at %d", off + i).isEqualTo(data(off + i));
                        }
                        held.set(off, off + p.length());
                    }
                    assertThat(held).isEqualTo(sent);
                }
            }
            assertThat(mib.get(MibCounter.TcpExtTCPOFOMerge) + mib.get(MibCounter.TcpExtTCPRcvCoalesce)).isPositive();
            q.purge();
            assertThat(q.isEmpty()).isTrue();
        }
    }
}
