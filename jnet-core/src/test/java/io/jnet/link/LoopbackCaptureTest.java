package io.jnet.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.pcap.PcapReader;
import io.jnet.link.pcap.PcapRecord;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.CommandResult;
import io.jnet.testing.Tools;
import io.jnet.wire.Checksum;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With tcp_friends off, loopback traffic is real frames: a sniffer on lo sees valid TCP/IP. */
class LoopbackCaptureTest {

    @Test
    void snifferOnLoopbackSeesValidTcp(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lo.pcap");
        try (NetNamespace ns = NetNamespace.create("cap")) {
            ns.interpose("lo", d -> {
                try {
                    return new PcapSniffer(d, PcapWriter.create(file));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
                srv.bind(new InetSocketAddress("127.0.0.1", 7000));
                srv.listen(4);
                CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
                    try (TcpSocket s = srv.accept()) {
                        byte[] buf = new byte[4096];
                        int n;
                        while ((n = s.read(buf, 0, buf.length)) > 0) s.write(buf, 0, n);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                try (TcpSocket c = TcpSocket.open(ns)) {
                    c.connect(new InetSocketAddress("127.0.0.1", 7000));
                    byte[] msg = new byte[100_000];
                    c.write(msg, 0, msg.length);
                    byte[] buf = new byte[msg.length];
                    int got = 0;
                    while (got < msg.length) got += c.read(buf, got, msg.length - got);
                    c.shutdownOutput();
                    assertThat(c.read(buf, 0, 1)).isEqualTo(-1);
                }
                echo.get(10, TimeUnit.SECONDS);
            }
            assertThat(ns.internalErrors()).isZero();
        }
        List<PcapRecord> frames = PcapReader.readAll(file);
        assertThat(frames.size()).isGreaterThanOrEqualTo(10);
        int tcp = 0;
        for (PcapRecord r : frames) {
            byte[] b = r.data();
            assertThat(Ethernet.etherType(b, 0)).isEqualTo(Ethernet.TYPE_IPV4);
            int ip = Ethernet.HEADER_LENGTH;
            assertThat(Ipv4.validate(b, ip, b.length - ip, true)).isEqualTo(Ipv4.OK);
            if (Ipv4.protocol(b, ip) == Ipv4.PROTO_TCP) {
                int hl = Ipv4.headerLength(b, ip);
                int len = Ipv4.totalLength(b, ip) - hl;
                assertThat(Checksum.verify(b, ip + hl, len,
                        Checksum.pseudoHeaderSum(Ipv4.source(b, ip), Ipv4.destination(b, ip), Ipv4.PROTO_TCP, len)))
                        .as("TCP checksum").isTrue();
                assertThat(Tcp.validate(b, ip + hl, len, true, Ipv4.source(b, ip), Ipv4.destination(b, ip))).isEqualTo(Tcp.OK);
                tcp++;
            }
        }
        assertThat(tcp).isGreaterThanOrEqualTo(10);
        if (Tools.has("tshark")) {
            CommandResult res = Tools.run(Duration.ofSeconds(60), "tshark", "-r", file.toString(),
                    "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                    "-Y", "_ws.malformed || _ws.expert.severity>=error || tcp.checksum.status==0 || udp.checksum.status==0 || ip.checksum.status==0");
            assertThat(res.exitCode()).as(res.describe()).isZero();
            assertThat(res.stdout()).as("frames failing the tshark gate").isBlank();
        }
        Files.deleteIfExists(file);
    }
}
