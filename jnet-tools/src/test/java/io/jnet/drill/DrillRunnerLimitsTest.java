package io.jnet.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.drill.jnet.JnetTarget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A script the runner cannot play is reported unsupported and counted so in the summary, never as a failure. */
class DrillRunnerLimitsTest {
    @TempDir
    Path dir;

    @Test
    void anInboundPacketBeforeThePortsAreKnownIsUnsupportedNotFailed() throws Exception {
        Path script = Files.writeString(dir.resolve("no-bind.pkt"), """
                0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
                +0 < S 0:0(0) win 1000
                """);
        Inet4Address local = v4("192.168.0.1"), remote = v4("192.0.2.1"), gateway = v4("192.168.0.2");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Drill.Result> results = Drill.run(ScriptFiles.collect(List.of(script)), () -> new JnetTarget(local, remote, gateway, 1500),
                new Drill.Settings(1, Map.of(), 4000, false), new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(results).extracting(Drill.Result::outcome).containsExactly(Drill.Outcome.UNSUPPORTED);
        assertThat(text).contains("unsupported ").contains("no-bind.pkt:2").contains("ports are known")
                .contains("failed 0").contains("unsupported 1");
    }

    static Inet4Address v4(String s) throws Exception { return (Inet4Address) InetAddress.getByName(s); }
}
