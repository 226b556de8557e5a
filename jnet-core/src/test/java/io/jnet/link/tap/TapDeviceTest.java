package io.jnet.link.tap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.buffer.PacketBuffer;
import io.jnet.testing.CommandResult;
import io.jnet.testing.LinuxNetns;
import io.jnet.testing.Tools;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TapDevice in this host's namespace: creation, names, errors, persistence and close. Needs root. */
class TapDeviceTest {

    @BeforeEach
    void needsRoot() {
        LinuxNetns.assumeAvailable();
    }

    static CommandResult ipLinkShow(String dev) throws IOException {
        return Tools.run(Duration.ofSeconds(5), "ip", "link", "show", "dev", dev);
    }

    static Optional<Thread> readerThread(String ifname) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("jnet-tap-" + ifname)).findFirst();
    }

    @Test
    void kernelFillsInTheNameAndTheInterfaceExistsUntilClose() throws Exception {
        String name;
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            name = tap.ifname();
            assertThat(name).matches("jnett\\d+");
            assertThat(tap.name()).isEqualTo(name);
            CommandResult shown = ipLinkShow(name);
            assertThat(shown.ok()).as(shown.describe()).isTrue();
            assertThat(shown.stdout()).contains(name);
        }
        assertThat(ipLinkShow(name).ok()).as("non-persistent interface removed at close").isFalse();
    }

    @Test
    void defaultsAndRandomMacIsLocallyAdministeredUnicast() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            assertThat(tap.mtu()).isEqualTo(1500);
            assertThat(tap.isLoopback()).isFalse();
            assertThat(tap.isOpen()).isTrue();
            long mac = tap.macAddress();
            assertThat(mac).isBetween(1L, 0xFFFF_FFFF_FFFFL);
            assertThat(mac & (1L << 40)).as("I/G bit (multicast)").isZero();
            assertThat(mac & (1L << 41)).as("U/L bit (locally administered)").isNotZero();
            tap.setMtu(9000);
            assertThat(tap.mtu()).isEqualTo(9000);
            assertThatThrownBy(() -> tap.setMtu(67)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> tap.setMtu(65536)).isInstanceOf(IllegalArgumentException.class);
            assertThat(tap.mtu()).isEqualTo(9000);
        }
    }

    @Test
    void givenMacAndMtuAreUsed() throws Exception {
        try (TapDevice tap = TapDevice.builder("jnett%d").macAddress(0x02_00_5e_10_00_01L).mtu(9000).open()) {
            assertThat(tap.macAddress()).isEqualTo(0x02_00_5e_10_00_01L);
            assertThat(TapDevice.formatMac(tap.macAddress())).isEqualTo("02:00:5e:10:00:01");
            assertThat(tap.mtu()).isEqualTo(9000);
        }
    }

    @Test
    void badOptionsAreRejectedBeforeAnythingIsOpened() {
        assertThatThrownBy(() -> TapDevice.builder("jnett%d").macAddress(0x01_00_5e_00_00_01L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multicast");
        assertThatThrownBy(() -> TapDevice.builder("jnett%d").macAddress(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TapDevice.builder("jnett%d").macAddress(1L << 48))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TapDevice.open("a-name-longer-than-15"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("15");
        assertThatThrownBy(() -> TapDevice.open("bad/name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TapDevice.open("bad name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TapDevice.builder("x").mtu(67)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void kernelErrorsAreReportedWithErrno() {
        // "lo" exists and is no TAP device: tun_set_iff answers EINVAL
        assertThatThrownBy(() -> TapDevice.open("lo"))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("TUNSETIFF failed: errno 22 (EINVAL");
        assertThatThrownBy(() -> TapDevice.builder("jnett%d").devicePath("/dev/net/no-such-device").open())
                .isInstanceOf(IOException.class)
                .hasMessage("open /dev/net/no-such-device failed: errno 2 (ENOENT: No such file or directory)");
    }

    @Test
    void closeStopsTheReaderWithinOneSecondAndLaterTransmitsAreDropped() throws Exception {
        TapDevice tap = TapDevice.open("jnett%d");
        String name = tap.ifname();
        Thread reader = readerThread(name).orElseThrow(() -> new AssertionError("no reader thread jnet-tap-" + name));
        assertThat(reader.isDaemon()).isTrue();
        assertThat(reader.isAlive()).isTrue();

        long start = System.nanoTime();
        tap.close();
        reader.join(1000);
        assertThat(reader.isAlive()).as("reader thread alive 1 s after close").isFalse();
        assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
        assertThat(tap.isOpen()).isFalse();

        PacketBuffer frame = PacketBuffer.copyOf(new byte[60], 0, 60, PacketBuffer.DEFAULT_HEADROOM);
        tap.transmit(frame);
        assertThat(frame.isReleased()).isTrue();
        assertThat(tap.stats().txDropped.sum()).isEqualTo(1);
        assertThat(tap.stats().txPackets.sum()).isZero();
        tap.close(); // idempotent
    }

    @Test
    void closeFromTheReceiverThreadDoesNotDeadlock() throws Exception {
        // the reader thread itself calls close(): it must finish on its own and release the device
        Tools.assumeHas("ping"); // the kernel's ping makes the frame that reaches the receiver
        try (LinuxNetns ns = LinuxNetns.create(); TapDevice tap = TapDevice.open("jnett%d")) {
            String name = tap.ifname();
            tap.setReceiver((dev, frame) -> {
                frame.release();
                dev.close();
            });
            ns.moveLink(name);
            ns.sysctl("net.ipv6.conf." + name + ".disable_ipv6", "1");
            ns.addAddress(name, "192.0.2.1/24");
            ns.linkUp(name);
            Thread reader = readerThread(name).orElseThrow();
            ns.start("ping", "-c", "1", "-W", "1", "192.0.2.2");
            reader.join(5000);
            assertThat(reader.isAlive()).isFalse();
            assertThat(tap.isOpen()).isFalse();
        }
    }

    @Test
    void anInterfaceDeletedWithItsNamespaceIsReportedAsDetached() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            java.util.concurrent.CountDownLatch told = new java.util.concurrent.CountDownLatch(1);
            tap.onDetach(told::countDown);
            try (LinuxNetns ns = LinuxNetns.create()) {
                ns.moveLink(tap.ifname());
                ns.linkUp(tap.ifname());
            } // deleting the namespace deletes the interface
            assertThat(told.await(5, java.util.concurrent.TimeUnit.SECONDS)).as("detach reported").isTrue();
            assertThat(tap.isDetached()).isTrue();
            assertThat(tap.isOpen()).as("still open: closing is the owner's call").isTrue();
            java.util.concurrent.CountDownLatch late = new java.util.concurrent.CountDownLatch(1);
            tap.onDetach(late::countDown);
            assertThat(late.getCount()).as("a listener set afterwards runs at once").isZero();
        }
    }

    @Test
    void framesTooShortOrTooLongAreDroppedAndReleased() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            PacketBuffer runt = PacketBuffer.copyOf(new byte[13], 0, 13, 0);
            PacketBuffer giant = PacketBuffer.allocate(0, TapDevice.MAX_FRAME + 1);
            giant.put(TapDevice.MAX_FRAME + 1);
            tap.transmit(runt);
            tap.transmit(giant);
            assertThat(runt.isReleased()).isTrue();
            assertThat(giant.isReleased()).isTrue();
            assertThat(tap.stats().txDropped.sum()).isEqualTo(2);
        }
    }

    @Test
    void transmitWhileTheKernelSideIsDownIsDropped() throws Exception {
        try (TapDevice tap = TapDevice.open("jnett%d")) {
            PacketBuffer frame = PacketBuffer.copyOf(new byte[60], 0, 60, PacketBuffer.DEFAULT_HEADROOM);
            tap.transmit(frame);
            assertThat(frame.isReleased()).isTrue();
            // the interface is down on the kernel side: tun_get_user refuses with EIO
            assertThat(tap.stats().txDropped.sum()).isEqualTo(1);
            assertThat(tap.stats().txPackets.sum()).isZero();
            assertThat(tap.stats().txErrors.sum()).isZero();
        }
    }

    @Test
    void persistentInterfaceOutlivesClose() throws Exception {
        String name;
        try (TapDevice tap = TapDevice.builder("jnett%d").persist(true).open()) {
            name = tap.ifname();
        }
        try {
            CommandResult shown = ipLinkShow(name);
            assertThat(shown.ok()).as(shown.describe()).isTrue();
            // attaching again to the existing persistent interface works and keeps its name
            try (TapDevice again = TapDevice.open(name)) {
                assertThat(again.ifname()).isEqualTo(name);
            }
        } finally {
            Tools.run(Duration.ofSeconds(5), "ip", "link", "del", "dev", name);
        }
        assertThat(ipLinkShow(name).ok()).isFalse();
    }
}
