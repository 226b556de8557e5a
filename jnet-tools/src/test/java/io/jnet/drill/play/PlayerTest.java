package io.jnet.drill.play;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.drill.jnet.JnetTarget;
import io.jnet.drill.script.DrillParser;
import io.jnet.drill.script.Script;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PlayerTest {
    static Verdict playOnJnet(String name, String text) throws Exception {
        Script s = DrillParser.parse(name, text);
        try (JnetTarget t = new JnetTarget(addr("192.168.0.1"), addr("192.0.2.1"), addr("192.168.0.2"), 1500)) {
            return Player.play(s, t, Player.Options.defaults());
        }
    }

    static Inet4Address addr(String s) throws Exception { return (Inet4Address) InetAddress.getByName(s); }

    static String resource(String name) throws Exception {
        try (var in = PlayerTest.class.getResourceAsStream("/drill-play/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void passiveOpenAndWrite() throws Exception {
        Verdict v = playOnJnet("passive-open-write.pkt", resource("passive-open-write.pkt"));
        assertThat(v.status()).as(v.toString()).isEqualTo(Verdict.Status.PASS);
    }
}
