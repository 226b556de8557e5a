package io.jnet.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration with a TAP device to the Linux kernel: the kernel side is moved into a Linux network namespace the
 * test makes (192.0.2.1/24, no default route, deleted afterwards), and the kernel connects to jnet over it, through
 * the configuration's capture and impairment of the TAP. Needs
 * root and iproute2; skipped with the reason otherwise.
 */
@Timeout(120)
class NetworkConfigTapTest {
    static final String JNET_IP = "192.0.2.2";
    static final String KERNEL_IP = "192.0.2.1";

    @BeforeEach
    void needsRoot() {
        LinuxNetns.assumeAvailable();
    }

    private static String tapName() {
        return "jnc" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0x100000));
    }

    @Test
    void theKernelConnectsToJnetThroughTheTapOfAConfiguration(@TempDir Path dir) throws Exception {
        Tools.assumeHas("bash");
        String tap = tapName();
        Path pcap = dir.resolve("tap.pcap");
        NetworkConfig config = NetworkConfig.parse("""
                namespace app
                link add %s type tap mtu 1500 pcap %s
                link set %s impair delay=5ms,seed=1
                addr add %s/24 dev %s
                route add 198.51.100.0/24 via %s
                nameserver %s
                """.formatted(tap, pcap, tap, JNET_IP, tap, KERNEL_IP, KERNEL_IP));
        Network net = config.apply();
        LinuxNetns netns = null;
        try {
            NetNamespace app = net.defaultNamespace();
            ImpairedDevice impaired = net.impairment("app", tap);
            assertThat(app.requireInterface(tap).device()).isSameAs(impaired);

            // a second holder of the same TAP is refused by the kernel (EBUSY); the error names line and device
            NetworkConfig again = NetworkConfig.parse("namespace other\nlink add v0 type veth peer v1\nlink add " + tap + " type tap");
            assertThatThrownBy(again::apply).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("line 3: link add " + tap + " type tap: cannot open TAP device " + tap + ": ")
                    .hasMessageContaining("EBUSY");

            netns = LinuxNetns.create();
            netns.moveLink(tap);
            netns.sysctl("net.ipv6.conf." + tap + ".disable_ipv6", "1");
            netns.addAddress(tap, KERNEL_IP + "/24");
            netns.linkUp("lo");
            netns.linkUp(tap);

            // an echo service on jnet's side, reached by bash's /dev/tcp in the kernel's namespace
            TcpServerSocket server = TcpServerSocket.open(app);
            server.bind(new InetSocketAddress(JNET_IP, 7));
            server.listen(4);
            CompletableFuture<Long> echoed = CompletableFuture.supplyAsync(() -> {
                try (TcpSocket s = server.accept()) {
                    byte[] buf = new byte[4096];
                    long total = 0;
                    for (int n; (n = s.read(buf, 0, buf.length)) > 0; total += n) s.write(buf, 0, n);
                    return total;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            CommandResult r = netns.exec(Duration.ofSeconds(30), "bash", "-c",
                    "exec 3<>/dev/tcp/" + JNET_IP + "/7 && printf 'hello jnet\\n' >&3 && head -n 1 <&3");
            assertThat(r.ok()).as("%s\n%s", r.describe(), app.mib().toNstatString()).isTrue();
            assertThat(r.stdout().strip()).isEqualTo("hello jnet");
            assertThat(echoed.get(20, TimeUnit.SECONDS)).isEqualTo(11);
            server.close();
            assertThat(impaired.counts(Direction.EGRESS).delayed()).isPositive();
            assertThat(impaired.counts(Direction.INGRESS).delayed()).isPositive();

            if (Tools.has("ping")) {
                CommandResult ping = netns.exec(Duration.ofSeconds(20), "ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", JNET_IP);
                assertThat(ping.ok()).as(ping.describe()).isTrue();
            } else {
                System.out.println("NetworkConfigTapTest: 'ping' is not installed; the kernel's ping to jnet is left out");
            }
            assertThat(app.internalErrors()).as("%s", app.lastInternalError()).isZero();

            net.close();
            // closing the network closed the TAP descriptor: the kernel deleted the interface
            CommandResult gone = netns.exec("ip", "link", "show", "dev", tap);
            assertThat(gone.ok()).as(gone.describe()).isFalse();
            assertThat(app.internalErrors()).as("%s", app.lastInternalError()).isZero();
            assertThat(Files.size(pcap)).as("the capture of the TAP holds the connection").isGreaterThan(24 + 6 * 54);
        } finally {
            net.close();
            if (netns != null) netns.close();
        }
    }
}
