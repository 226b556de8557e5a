package io.jnet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.app.TapStack;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.BackgroundProcess;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jnet's resolver against a real DNS server: Debian's dnsmasq in a Linux network namespace (192.0.2.1, and
 * 192.0.2.3 where nothing listens), reached through jnet's TAP device (jnet at 192.0.2.2/24; no default route; the
 * namespace is deleted afterwards). dnsmasq answers only from its command line ({@code --no-resolv --no-hosts},
 * {@code --local=/example.test/} for NXDOMAIN) and listens on 192.0.2.1 only. Skipped, with the reason, without
 * root, ip or dnsmasq (Debian package dnsmasq-base).
 */
@Timeout(120)
class KernelDnsmasqTest {
    private static final String SERVER = "192.0.2.1";
    private static final String SILENT = "192.0.2.3";

    private TapStack stack;
    private LinuxNetns netns;
    private BackgroundProcess dnsmasq;

    @BeforeEach
    void startDnsmasq() throws Exception {
        LinuxNetns.assumeAvailable();
        Tools.assumeHas("dnsmasq");
        stack = TapStack.open(new TapStack.Config("jnetdns%d", "192.0.2.2/24", 1500, null));
        netns = LinuxNetns.create();
        String dev = stack.ifname();
        netns.moveLink(dev);
        netns.sysctl("net.ipv6.conf." + dev + ".disable_ipv6", "1");
        netns.addAddress(dev, SERVER + "/24");
        netns.addAddress(dev, SILENT + "/24");
        netns.linkUp("lo");
        netns.linkUp(dev);
        List<String> cmd = new ArrayList<>(List.of("dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts",
                "--bind-interfaces", "--listen-address=" + SERVER, "--port=53", "--pid-file=", "--log-facility=-",
                "--conf-file=/dev/null", "--local=/example.test/", "--local-ttl=60",
                "--host-record=host.example.test,192.0.2.11",
                "--host-record=db.corp.test,192.0.2.12",
                "--cname=www.example.test,web.example.test", "--cname=web.example.test,host.example.test",
                "--address=/wild.example.test/192.0.2.13"));
        // 40 addresses for one name: 40 * 16 bytes of answers do not fit in 512, so dnsmasq sets TC over UDP
        for (int i = 1; i <= 40; i++) cmd.add("--host-record=big.example.test,192.0.2." + (100 + i));
        dnsmasq = netns.start(cmd.toArray(String[]::new));
        long end = System.nanoTime() + 10_000_000_000L;
        while (!dnsmasq.stderr().contains("started")) {
            if (!dnsmasq.isAlive() || System.nanoTime() > end) throw new AssertionError("dnsmasq did not start: " + dnsmasq.describe());
            Thread.sleep(20);
        }
    }

    @AfterEach
    void stop() {
        if (dnsmasq != null) dnsmasq.close();
        if (stack != null) stack.close();
        if (netns != null) netns.close();
    }

    private NetNamespace jnet() { return stack.namespace(); }

    private static Inet4Address ip(String s) { return (Inet4Address) InetAddress.ofLiteral(s); }

    private void assertNoInternalErrors() {
        Throwable t = jnet().lastInternalError();
        StringWriter w = new StringWriter();
        if (t != null) t.printStackTrace(new PrintWriter(w));
        assertThat(jnet().internalErrors()).as("jnet internal errors, last: %s", w).isZero();
    }

    @Test
    void aCnameNxdomainTheSearchListAndPtrFromDnsmasq() throws Exception {
        NameService names = NameService.of(jnet());
        names.setResolvConf(ResolvConf.parse("nameserver " + SERVER + "\nsearch corp.test\noptions timeout:2\n"));
        DnsResolver r = names.resolver();
        assertThat(r.lookup("host.example.test")).containsExactly(ip("192.0.2.11"));
        assertThat(r.lookup("www.example.test")).as("through two CNAMEs").containsExactly(ip("192.0.2.11"));
        assertThat(r.lookup("any.wild.example.test")).containsExactly(ip("192.0.2.13"));
        assertThat(names.lookupByName("db")).as("db.corp.test from the search list").containsExactly(ip("192.0.2.12"));
        UnknownHostException nx = catchThrowableOfType(UnknownHostException.class, () -> r.lookup("nosuch.example.test"));
        assertThat(nx).hasMessageContaining("nosuch.example.test (NXDOMAIN from 192.0.2.1)");
        assertThat(r.reverseLookup(ip("192.0.2.11"))).isEqualTo("host.example.test");
        assertThat(names.lookupByAddress(ip("192.0.2.12"))).isEqualTo("db.corp.test");
        assertThat(r.statistics().timeouts()).isZero();
        assertThat(r.statistics().mismatchedReplies() + r.statistics().malformedReplies()).isZero();
        assertNoInternalErrors();
    }

    @Test
    void aTruncatedAnswerIsFetchedAgainOverTcp() throws Exception {
        DnsResolver r = new DnsResolver(jnet(), ResolvConf.ofNameservers(SERVER).withTimeout(2));
        List<Inet4Address> all = r.lookup("big.example.test");
        assertThat(all).hasSize(40);
        assertThat(all).extracting(Inet4Address::getHostAddress).allMatch(a -> a.startsWith("192.0.2.1"));
        assertThat(r.statistics().tcpRetries()).isEqualTo(1);
        assertNoInternalErrors();
    }

    @Test
    void aServerThatDoesNotAnswerTimesOutThenTheNextAnswers() throws Exception {
        // nothing listens on 192.0.2.3: the kernel's ICMP port unreachable does not reach the unconnected socket
        DnsResolver r = new DnsResolver(jnet(), ResolvConf.parse("nameserver " + SILENT + "\nnameserver " + SERVER
                + "\noptions timeout:1 attempts:1\n"));
        long start = System.nanoTime();
        assertThat(r.lookup("host.example.test")).containsExactly(ip("192.0.2.11"));
        assertThat(System.nanoTime() - start).as("waited the 1 s timeout for the silent server").isGreaterThanOrEqualTo(1_000_000_000L);
        assertThat(r.statistics().timeouts()).isEqualTo(1);

        DnsResolver onlySilent = new DnsResolver(jnet(), ResolvConf.parse("nameserver " + SILENT + "\noptions timeout:1 attempts:1\n"));
        UnknownHostException e = catchThrowableOfType(UnknownHostException.class, () -> onlySilent.lookup("host.example.test"));
        assertThat(e).hasMessage("host.example.test: no answer: host.example.test (timed out (192.0.2.3) after 1 attempt of 1 s per server)");
        assertNoInternalErrors();
    }
}
