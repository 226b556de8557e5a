package io.jnet.interop;

import static io.jnet.interop.KernelPeer.JNET_IP;
import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The kernel pings jnet (ARP, ICMP echo, IPv4 fragmentation both ways) and is refused (RST) on a closed port. */
@Timeout(120)
@Tag("jnet-provider") // the JDK's HTTP classes on jnet: runs in the JVM whose provider is jnet's (see pom.xml)
class KernelPingAndResetTest {

    @BeforeEach
    void needsRoot() {
        LinuxNetns.assumeAvailable();
    }

    @Test
    void kernelPingsJnetWithSmallAndFragmentedEchoes() throws Exception {
        Tools.assumeHas("ping");
        try (KernelPeer peer = KernelPeer.open(null)) {
            CommandResult small = peer.exec(Duration.ofSeconds(20), "ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", JNET_IP);
            assertThat(small.ok()).as("%s\n%s", small.describe(), peer.counters()).isTrue();
            assertThat(small.stdout()).contains("3 packets transmitted, 3 received");

            // 8000 bytes of payload: 8028-byte datagrams, fragmented by the kernel towards jnet and by jnet back
            CommandResult big = peer.exec(Duration.ofSeconds(20), "ping", "-n", "-c", "2", "-i", "0.2", "-W", "2",
                    "-s", "8000", JNET_IP);
            assertThat(big.ok()).as("%s\n%s", big.describe(), peer.counters()).isTrue();
            assertThat(big.stdout()).contains("2 packets transmitted, 2 received").contains("8008 bytes from " + JNET_IP);
            peer.assertNoInternalErrors();
        }
    }

    @Test
    void connectToAClosedPortIsRefused() throws Exception {
        Tools.assumeHas("curl");
        Tools.assumeHas("python3");
        try (KernelPeer peer = KernelPeer.open(null)) {
            peer.serve();
            CommandResult curl = peer.exec(Duration.ofSeconds(20), "curl", "-sS", "--max-time", "10",
                    "http://" + JNET_IP + ":81/");
            assertThat(curl.exitCode()).as("curl exit 7 is \"Couldn't connect\": %s\n%s", curl.describe(), peer.counters())
                    .isEqualTo(7);

            CommandResult python = peer.exec(Duration.ofSeconds(20), "python3", "-c", """
                    import socket
                    s = socket.socket()
                    s.settimeout(5)
                    try:
                        s.connect(("%s", 81))
                        print("connected")
                    except ConnectionRefusedError:
                        print("refused")
                    except Exception as e:
                        print(type(e).__name__, e)
                    """.formatted(JNET_IP));
            assertThat(python.stdout().strip()).as(python.describe()).isEqualTo("refused");

            // the open port next to it still answers
            CommandResult ok = peer.exec(Duration.ofSeconds(20), "curl", "-sS", "--fail", "--max-time", "10",
                    "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "http://" + JNET_IP + "/bytes/10");
            assertThat(ok.ok()).as(ok.describe()).isTrue();
            assertThat(ok.stdout()).isEqualTo("200 10");
            peer.assertNoInternalErrors();
        }
    }
}
