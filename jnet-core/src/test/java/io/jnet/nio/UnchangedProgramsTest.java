package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.nio.programs.FdWatch;
import io.jnet.nio.programs.GrpcPrograms;
import io.jnet.nio.programs.JdkHttpServerProgram;
import io.jnet.nio.programs.NettyPrograms;
import io.jnet.nio.programs.PlainJdkPrograms;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.ChildJvm;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Programs that know nothing of jnet (the JDK's HttpServer, HttpClient, HttpURLConnection, Socket, InetAddress;
 * Netty's default NIO transport; gRPC over it) run in a child JVM through {@link JnetLauncher} or
 * {@code -javaagent}, while the child lists its own {@code /proc/self/fd} every 2 ms ({@link FdWatch}): every check
 * must pass and the child must never hold a kernel socket. As root, the child also runs inside a Linux network
 * namespace whose only interface, {@code lo}, is down, so any socket that reached the kernel would fail; a plain run
 * of the same program there (no jnet) fails, which shows the namespace does cut the kernel's network off.
 */
@Timeout(300)
class UnchangedProgramsTest {
    private static final List<String> JVM = List.of("--enable-native-access=ALL-UNNAMED");
    private static LinuxNetns isolated;

    @BeforeAll
    static void isolatedNamespace() throws IOException {
        if (LinuxNetns.available()) isolated = LinuxNetns.create(); // lo stays down: no network at all
    }

    @AfterAll
    static void removeIt() {
        if (isolated != null) isolated.close();
    }

    private static List<String> wrapper() {
        return isolated == null ? List.of() : List.of("ip", "netns", "exec", isolated.name());
    }

    private static CommandResult run(List<String> jvm, List<String> args) throws Exception {
        CommandResult r = ChildJvm.run(wrapper(), FdWatch.class, jvm, args, Duration.ofSeconds(180));
        assertThat(r.ok()).as(r.describe()).isTrue();
        assertThat(r.stdout()).as(r.describe()).contains("kernel-sockets 0\n");
        return r;
    }

    @Test
    void plainJdkProgramsThroughTheLauncher(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("net.conf");
        Files.writeString(conf, "namespace app\nhost 192.0.2.77 db.example.test db\n");
        CommandResult r = run(JVM, List.of("--config", conf.toString(), PlainJdkPrograms.class.getName(), "db.example.test"));
        assertThat(r.stdout()).contains("httpclient 200 POST /a 3\n", "urlconnection 200 GET /b 0\n",
                "socket ping 127.0.0.1\n", "lookup 192.0.2.77\n");
    }

    @Test
    void plainJdkProgramsUnderTheAgent(@TempDir Path dir) throws Exception {
        // the agent jar: only a manifest naming the agent class, which the class path holds
        Path jar = dir.resolve("jnet-agent.jar");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(new Attributes.Name("Premain-Class"), JnetAgent.class.getName());
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
            j.flush();
        }
        List<String> jvm = new ArrayList<>(JVM);
        jvm.add("-javaagent:" + jar);
        jvm.add("-Djnet.config.inline=namespace app; host 198.51.100.9 api.example.test");
        CommandResult r = run(jvm, List.of("--no-launcher", PlainJdkPrograms.class.getName(), "api.example.test"));
        assertThat(r.stdout()).contains("httpclient 200 POST /a 3\n", "socket ping 127.0.0.1\n", "lookup 198.51.100.9\n");
    }

    @Test
    void withoutJnetTheIsolatedNamespaceHasNoNetwork() throws Exception {
        LinuxNetns.assumeAvailable();
        CommandResult r = ChildJvm.run(wrapper(), FdWatch.class, JVM,
                List.of("--no-launcher", PlainJdkPrograms.class.getName()), Duration.ofSeconds(60));
        assertThat(r.exitCode()).as("the kernel's sockets fail there: %s", r.describe()).isEqualTo(1);
        assertThat(r.stderr()).contains("Network is unreachable");
    }

    @Test
    void nettyEchoAndHttpOnNettysDefaultTransport() throws Exception {
        CommandResult r = run(JVM, List.of(NettyPrograms.class.getName()));
        assertThat(r.stdout()).contains("netty-stream ok\n", "netty-rr 1000\n", "netty-http 200 hello from 127.0.0.1 /x\n");
    }

    @Test
    void grpcUnaryAndStreamingOnNettysDefaultTransport() throws Exception {
        CommandResult r = run(JVM, List.of(GrpcPrograms.class.getName()));
        assertThat(r.stdout()).contains("grpc-unary hello jnet\n", "grpc-stream 100\n");
    }

    /**
     * The JDK's HttpServer, unchanged, on a jnet namespace whose only link is a TAP device: the kernel's curl, in a
     * Linux namespace the test makes (192.0.2.1/24), downloads 64 MiB from it and uploads 64 MiB to it, each
     * checked by SHA-256.
     */
    @Test
    void jdkHttpServerServesTheKernelsCurlThroughTap(@TempDir Path dir) throws Exception {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("curl");
        long size = 64L << 20;
        String tap = "jnh" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0x100000));
        Path conf = dir.resolve("tap.conf");
        Files.writeString(conf, "namespace app\nlink add " + tap + " type tap\naddr add 192.0.2.2/24 dev " + tap + "\n");
        List<String> cmd = new ArrayList<>(ChildJvm.command(FdWatch.class, JVM,
                List.of("--config", conf.toString(), JdkHttpServerProgram.class.getName(), "8080", Long.toString(size))));
        try (BackgroundProcess server = BackgroundProcess.start(cmd); LinuxNetns kernel = LinuxNetns.create()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!server.stdout().contains("listening")) {
                assertThat(server.isAlive()).as(server.describe()).isTrue();
                assertThat(System.nanoTime()).as(server.describe()).isLessThan(deadline);
                Thread.sleep(20);
            }
            kernel.moveLink(tap);
            kernel.sysctl("net.ipv6.conf." + tap + ".disable_ipv6", "1");
            kernel.addAddress(tap, "192.0.2.1/24");
            kernel.linkUp("lo");
            kernel.linkUp(tap);

            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[65536];
            for (long off = 0; off < size; off += buf.length) {
                for (int i = 0; i < buf.length; i++) buf[i] = JdkHttpServerProgram.patternByte(off + i);
                md.update(buf);
            }
            String expected = HexFormat.of().formatHex(md.digest());
            CommandResult down = kernel.exec(Duration.ofSeconds(120), "sh", "-c",
                    "curl -sS --fail --max-time 100 http://192.0.2.2:8080/blob | sha256sum");
            assertThat(down.ok()).as(down.describe() + "\n" + server.describe()).isTrue();
            assertThat(down.stdout()).startsWith(expected);

            Path upload = dir.resolve("upload.bin");
            try (OutputStream o = Files.newOutputStream(upload)) {
                for (long off = 0; off < size; off += buf.length) {
                    ThreadLocalRandom.current().nextBytes(buf);
                    o.write(buf);
                }
            }
            String uploadSha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(upload)));
            CommandResult up = kernel.exec(Duration.ofSeconds(120), "curl", "-sS", "--fail", "--max-time", "100",
                    "--data-binary", "@" + upload, "-H", "Content-Type: application/octet-stream", "http://192.0.2.2:8080/sha256");
            assertThat(up.ok()).as(up.describe() + "\n" + server.describe()).isTrue();
            assertThat(up.stdout().strip()).isEqualTo(uploadSha);

            CommandResult quit = kernel.exec(Duration.ofSeconds(30), "curl", "-sS", "--fail", "http://192.0.2.2:8080/quit");
            assertThat(quit.ok()).as(quit.describe()).isTrue();
            assertThat(server.waitFor(Duration.ofSeconds(30))).as(server.describe()).isZero();
            assertThat(server.stdout()).contains("kernel-sockets 0\n");
        }
    }
}
