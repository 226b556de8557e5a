package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.nio.programs.JdkHttpPair;
import io.jnet.testing.ChildJvm;
import io.jnet.testing.CommandResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JDK's HttpClient in one jnet namespace and the JDK's HttpServer in another, joined by a veth pair, in a child
 * JVM with jnet's provider installed ({@link JdkHttpPair}): a small GET whose answer names both ends' addresses (each
 * service sees only its own namespace's), and 16 MiB each way checked by SHA-256.
 */
@Timeout(180)
class JdkHttpAcrossNamespacesTest {
    @Test
    void httpClientToHttpServerAcrossTwoNamespaces() throws Exception {
        CommandResult r = ChildJvm.run(JdkHttpPair.class,
                List.of("--enable-native-access=ALL-UNNAMED", "-Djava.nio.channels.spi.SelectorProvider=" + JnetSelectorProvider.class.getName()),
                List.of("16"), Duration.ofSeconds(150));
        assertThat(r.ok()).as(r.describe()).isTrue();
        assertThat(r.stdout()).contains("hello 200 hello from 10.9.0.2 to 10.9.0.1\n", "download 200 sha256-ok\n",
                "upload 200 sha256-ok\n", "internal-errors 0\n");
    }
}
