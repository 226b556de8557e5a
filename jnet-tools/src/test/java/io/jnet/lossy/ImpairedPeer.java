package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.app.JnetServer;
import io.jnet.app.PatternBytes;
import io.jnet.link.impair.Direction;
import io.jnet.link.impair.ImpairedDevice;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The Linux kernel, in a Linux network namespace the test creates, as jnet's peer over a link impaired on jnet's
 * side by an {@link ImpairedDevice}: what the lossy kernel tests do with it, whatever the link ({@link ImpairedKernelPeer}
 * over TAP, {@link ImpairedVxlanKernelPeer} over VXLAN).
 */
abstract class ImpairedPeer implements AutoCloseable {
    private final ImpairedDevice impaired;
    private JnetServer server;

    ImpairedPeer(ImpairedDevice impaired) {
        this.impaired = impaired;
    }

    /** The jnet namespace on the link. */
    abstract NetNamespace jnet();

    /** The Linux namespace holding the kernel's side of the link. */
    abstract LinuxNetns netns();

    /** jnet's IPv4 address on the link, dotted quad. */
    abstract String jnetIp();

    /** The kernel's IPv4 address on the link, dotted quad. */
    abstract String kernelIp();

    /** The options tshark needs to read a capture of this link ({@code -d ...} to decode a tunnel), none by default. */
    String[] tsharkOptions() { return new String[0]; }

    /** The impairment in front of jnet's device. */
    final ImpairedDevice impaired() { return impaired; }

    /** Starts jnet's HTTP server on port 80 (and echo, discard) at {@link #jnetIp()}. */
    final JnetServer serve() throws IOException {
        server = JnetServer.start(jnet(), InetAddress.getByName(jnetIp()), JnetServer.Ports.defaults());
        return server;
    }

    /** Runs a shell command line (bash, pipefail) in the Linux namespace. */
    final CommandResult shell(Duration timeout, String script) throws IOException {
        return netns().exec(timeout, "bash", "-c", "set -o pipefail; " + script);
    }

    /**
     * The kernel's curl downloads {@code size} bytes of jnet's pattern from {@link #serve}'s HTTP server and checks
     * their SHA-256; returns the seconds it took. Fails the test, with {@link #summary}, when they do not arrive whole.
     */
    final double kernelDownloads(long size, Duration timeout) throws IOException {
        long start = System.nanoTime();
        CommandResult get = shell(timeout, "curl -sS --fail --max-time " + maxTime(timeout) + " http://" + jnetIp()
                + "/bytes/" + size + " | sha256sum");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(get.ok()).as("%s\n%s", get.describe(), summary()).isTrue();
        assertThat(get.stdout()).startsWith(PatternBytes.sha256(size) + " ");
        return seconds;
    }

    /**
     * The kernel's curl uploads {@code file} (jnet's pattern, {@code size} bytes) to {@link #serve}'s HTTP server,
     * which answers its SHA-256; returns the seconds it took. Fails the test when the answer is not the file's.
     */
    final double kernelUploads(Path file, long size, Duration timeout) throws IOException {
        long start = System.nanoTime();
        CommandResult put = netns().exec(timeout, "curl", "-sS", "--fail", "--max-time", maxTime(timeout), "-T",
                file.toString(), "http://" + jnetIp() + "/upload");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(put.ok()).as("%s\n%s", put.describe(), summary()).isTrue();
        assertThat(put.stdout()).isEqualTo(PatternBytes.sha256(size) + "\n");
        return seconds;
    }

    /** curl's --max-time for a command given {@code timeout}: 10 s less, so that curl reports first. */
    private static String maxTime(Duration timeout) {
        return Long.toString(Math.max(1, timeout.toSeconds() - 10));
    }

    /** The kernel namespace's value of one {@code nstat} counter (e.g. {@code TcpRetransSegs}), absolute. */
    final long kernelCounter(String name) throws IOException {
        return netns().exec("nstat", "-az", name).stdout().lines().filter(l -> l.startsWith(name + " "))
                .map(l -> Long.parseLong(l.trim().split("\\s+")[1])).findFirst()
                .orElseThrow(() -> new IOException("nstat has no " + name));
    }

    /** {@code name value} of each of {@code names} in the kernel namespace, comma-separated ({@code ?}: no such counter). */
    final String kernelCounters(String... names) {
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            String v;
            try {
                v = Long.toString(kernelCounter(n));
            } catch (IOException | RuntimeException e) {
                v = "?";
            }
            b.append(b.isEmpty() ? "" : ", ").append(n).append(' ').append(v);
        }
        return b.toString();
    }

    /** One line: impairments both ways, jnet's retransmissions and timeouts, the kernel's TCP retransmissions. */
    final String summary() {
        String kernel;
        try {
            kernel = netns().exec("nstat", "-az", "TcpRetransSegs", "TcpExtTCPTimeouts").stdout().lines()
                    .filter(l -> l.startsWith("Tcp")).map(l -> l.replaceAll("\\s+", " ").replaceAll(" 0\\.0$", ""))
                    .reduce((x, y) -> x + ", " + y).orElse("?");
        } catch (IOException e) {
            kernel = "? (" + e + ")";
        }
        return "egress " + impaired.counts(Direction.EGRESS).summary() + "\ningress " + impaired.counts(Direction.INGRESS).summary()
                + "\njnet: TcpRetransSegs " + jnet().mib().get(MibCounter.TcpRetransSegs) + ", TcpExtTCPTimeouts "
                + jnet().mib().get(MibCounter.TcpExtTCPTimeouts) + "; kernel: " + kernel;
    }

    /** The impairments did happen in both directions, and the stack caught no exception. */
    void assertImpairedAndClean() {
        for (Direction d : Direction.values()) {
            assertThat(impaired.counts(d).dropped()).as("%s drops\n%s", d, summary()).isPositive();
        }
        assertThat(jnet().internalErrors()).as("internal errors, last %s", jnet().lastInternalError()).isZero();
    }

    /** Stops jnet's services (the subclass then closes the link and both namespaces). */
    void closeServer() {
        if (server != null) server.close();
    }

    @Override
    public abstract void close();
}
