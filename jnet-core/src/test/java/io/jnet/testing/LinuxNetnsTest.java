package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LinuxNetnsTest {

    @Test
    void onlyDocumentationAddressesAreAccepted() {
        LinuxNetns.checkAddress("192.0.2.1/24");
        LinuxNetns.checkAddress("198.51.100.254/32");
        for (String bad : new String[] {"10.0.0.1/24", "192.168.1.1/24", "192.0.2.1/16", "192.0.2.300/24",
                "192.0.2.1", "203.0.113.1/24", "192.0.2.1/33"}) {
            assertThatThrownBy(() -> LinuxNetns.checkAddress(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void toolsFindsInstalledCommandsOnly() throws IOException {
        assertThat(Tools.has("sh")).isTrue();
        assertThat(Tools.has("no-such-command-jnet")).isFalse();
        CommandResult r = Tools.run(Duration.ofSeconds(5), "sh", "-c", "echo out; echo err >&2; exit 3");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.ok()).isFalse();
        assertThat(r.stdout()).isEqualTo("out\n");
        assertThat(r.stderr()).isEqualTo("err\n");
        assertThatThrownBy(r::checkSuccess).isInstanceOf(IOException.class).hasMessageContaining("exited 3");
        CommandResult slow = Tools.run(Duration.ofMillis(200), "sleep", "30");
        assertThat(slow.timedOut()).isTrue();
    }

    @Test
    void namespaceIsIsolatedAndRemovedWithItsProcessesAtClose() throws Exception {
        LinuxNetns.assumeAvailable();
        BackgroundProcess sleeper;
        String name;
        try (LinuxNetns ns = LinuxNetns.create()) {
            name = ns.name();
            assertThat(name).matches("jnet-test-\\d+-[0-9a-f]{4}");
            assertThat(Tools.run(Duration.ofSeconds(5), "ip", "netns", "list").stdout()).contains(name);
            // a fresh namespace has only lo, which is down, and no routes at all
            CommandResult links = ns.execChecked("ip", "-o", "link", "show");
            assertThat(links.stdout().lines()).hasSize(1).allMatch(l -> l.contains(": lo:"));
            ns.linkUp("lo");
            assertThat(ns.execChecked("ip", "route", "show").stdout()).isBlank();
            ns.sysctl("net.ipv4.ip_forward", "0");
            sleeper = ns.start("sleep", "60");
            assertThat(sleeper.isAlive()).isTrue();
            assertThatThrownBy(() -> ns.addAddress("lo", "10.1.2.3/24")).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(sleeper.isAlive()).isFalse();
        assertThat(Tools.run(Duration.ofSeconds(5), "ip", "netns", "list").stdout()).doesNotContain(name);
    }
}
