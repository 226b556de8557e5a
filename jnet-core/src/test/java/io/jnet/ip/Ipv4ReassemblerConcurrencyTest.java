package io.jnet.ip;

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
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class Ipv4ReassemblerConcurrencyTest {

    @Test
    void twoReceiveThreadsReassembleEveryDatagramExactlyOnce() throws Exception {
        VirtualClock clock = new VirtualClock();
        TimerWheel wheel = new TimerWheel(clock, "t");
        clock.register(wheel);
        Mib mib = new Mib();
        Ipv4Reassembler reasm = new Ipv4Reassembler(new Sysctls(), mib, wheel);
        Ipv4Fragmenter fragmenter = new Ipv4Fragmenter(new Mib());
        Random rnd = new Random(2024);
        int rounds = 5;
        int perRound = 100;

        for (int round = 0; round < rounds; round++) {
            Map<Integer, byte[]> originals = new HashMap<>();
            List<PacketBuffer> all = new ArrayList<>();
            for (int i = 0; i < perRound; i++) {
                int id = round * perRound + i;
                PacketBuffer d = udpDatagram(id, 2000 + rnd.nextInt(8000), id);
                originals.put(id, d.toBytes());
                all.addAll(split(fragmenter, d, 1500));
            }
            Collections.shuffle(all, rnd);
            List<List<PacketBuffer>> streams = List.of(new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < all.size(); i++) streams.get(i % 2).add(all.get(i));

            ConcurrentLinkedQueue<PacketBuffer> results = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            CyclicBarrier start = new CyclicBarrier(2);
            List<Thread> threads = new ArrayList<>();
            for (List<PacketBuffer> stream : streams) {
                threads.add(Thread.ofPlatform().name("rx-" + threads.size()).start(() -> {
                    try {
                        start.await(10, TimeUnit.SECONDS);
                        for (PacketBuffer f : stream) {
                            PacketBuffer d = reasm.accept(f);
                            if (d != null) results.add(d);
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                }));
            }
            for (Thread t : threads) t.join(30_000);
            assertThat(errors).isEmpty();

            assertThat(results).hasSize(perRound);
            Map<Integer, byte[]> seen = new HashMap<>();
            for (PacketBuffer d : results) {
                int id = Ipv4.identification(d.array(), d.dataStart());
                assertThat(seen.put(id, d.toBytes())).as("datagram %d reassembled twice", id).isNull();
                assertThat(d.toBytes()).isEqualTo(originals.get(id));
            }
            assertThat(all).allSatisfy(f -> assertThat(f.isReleased()).isTrue());
            assertThat(reasm.queueCount()).isZero();
            assertThat(reasm.memoryBytes()).isZero();
        }
        assertThat(mib.get(MibCounter.IpReasmOKs)).isEqualTo((long) rounds * perRound);
        assertThat(mib.get(MibCounter.IpReasmFails)).isZero();
    }
}
