package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.testing.ChildJvm;
import io.jnet.testing.CommandResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link JnetSockets#install()} in a child JVM ({@link JvmWideSocketsChild}), since JVM-wide factories must not
 * reach the shared test JVM, whose other tests use the kernel's java.net: unchanged {@code new Socket},
 * {@code new ServerSocket} and {@code HttpURLConnection} code on jnet namespaces, with no kernel socket.
 */
class JvmWideSocketsTest {

    @Test
    void unchangedJavaNetCodeRunsOnJnetWithNoKernelSocket() throws Exception {
        CommandResult r = ChildJvm.run(JvmWideSocketsChild.class, List.of("--enable-native-access=ALL-UNNAMED"),
                List.of(), Duration.ofSeconds(120));
        assertThat(r.ok()).as(r.describe()).isTrue();
        assertThat(r.stderr()).as(r.describe()).isEmpty();
        assertThat(r.stdout()).as(r.describe())
                .contains("kernel sockets at start: []")
                .contains("Socket without a network: jnet: no network for this Socket")
                .contains("ServerSocket without a network: jnet: no network for this ServerSocket")
                .contains("HttpURLConnection without a network: jnet: no network for this Socket")
                .contains("echo over veth from /10.0.0.1:")
                .contains("HttpURLConnection GET 127.0.0.1: GET /hello on /127.0.0.1:8080")
                .contains("HttpURLConnection POST 127.0.0.1: 200000 bytes, SHA-256 matches")
                .contains("HttpURLConnection GET 10.0.0.2 over veth: GET /index on /10.0.0.2:80")
                .contains("HttpURLConnection GET from the peer's scope: GET /back on /10.0.0.1:8080")
                .contains("kernel sockets while jnet sockets are open: []")
                .endsWith("OK\n");
    }

    @Test
    void installRefusesClearlyWhenAnotherFactoryIsSet() throws Exception {
        CommandResult socket = ChildJvm.run(JvmWideSocketsChild.class, List.of("--enable-native-access=ALL-UNNAMED"),
                List.of("socket"), Duration.ofSeconds(120));
        assertThat(socket.ok()).as(socket.describe()).isTrue();
        assertThat(socket.stdout()).as(socket.describe()).contains("install over a foreign socket factory: jnet: "
                + "java.net.Socket already has a SocketImplFactory that is not jnet's; jnet's factories are not installed");
        CommandResult server = ChildJvm.run(JvmWideSocketsChild.class, List.of("--enable-native-access=ALL-UNNAMED"),
                List.of("serversocket"), Duration.ofSeconds(120));
        assertThat(server.ok()).as(server.describe()).isTrue();
        assertThat(server.stdout()).as(server.describe()).contains("install over a foreign serversocket factory: jnet: "
                + "java.net.ServerSocket already has a SocketImplFactory that is not jnet's; java.net.Socket's is "
                + "jnet's now");
    }
}
