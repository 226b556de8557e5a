package io.jnet.rds;

import static io.jnet.rds.RdsPair.A;
import static io.jnet.rds.RdsPair.B;
import static io.jnet.rds.RdsPair.addr;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Application readiness listeners never run under an RDS connection's monitor: a listener that takes an
 * application lock while another application thread holding it calls into the connection would deadlock.
 */
@Timeout(120)
class RdsListenerLockTest {

    @Test
    void sendSpaceListenersRunOutsideTheConnectionMonitor() throws Exception {
        try (RdsPair p = new RdsPair(); RdsSocket a = RdsPair.open(p.a, A, 5000); RdsSocket b = RdsPair.open(p.b, B, 6000)) {
            a.send(new byte[1], 0, 1, addr(B, 6000));
            b.receive(new byte[10], 0, 10);
            RdsConnection c = p.connA();
            AtomicInteger calls = new AtomicInteger(), underMonitor = new AtomicInteger();
            a.addReadinessListener(s -> {
                calls.incrementAndGet();
                if (Thread.holdsLock(c)) underMonitor.incrementAndGet();
            });
            b.setOption(SocketOption.SO_RCVBUF, 1 << 20);
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) b.receive(new byte[2000], 0, 2000);
                } catch (Exception e) {
                    // closed
                }
            });
            a.setOption(SocketOption.SO_SNDBUF, 8192); // rs_snd_bytes may reach 8 KiB
            a.setBlocking(false);
            int rounds = 0;
            for (int k = 0; k < 20; k++) {
                try {
                    while (true) a.send(new byte[2000], 0, 2000, addr(B, 6000));
                } catch (ErrnoException e) {
                    // send buffer full, or b's port congested for a moment (its reader is behind)
                    assertThat(e.errno()).isIn(Errno.EAGAIN, Errno.ENOBUFS);
                }
                rounds++;
                assertThat(RdsPair.await(() -> (a.readyEvents() & Events.POLLOUT) != 0)).isTrue();
            }
            assertThat(rounds).isEqualTo(20);
            assertThat(calls.get()).isPositive();
            assertThat(underMonitor.get()).as("listener calls under the connection's monitor").isZero();
            p.assertNoInternalErrors();
        }
    }
}
