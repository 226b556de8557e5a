package io.jnet.cli;

import io.jnet.app.TapStack;
import io.jnet.link.tap.TapDevice;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options that put a jnet namespace on a TAP interface, shared by {@code serve} and {@code fetch}. */
public final class TapOptions {

    @Option(names = "--tap", paramLabel = "NAME", defaultValue = TapStack.Config.DEFAULT_TAP,
            description = "TAP interface to create, or to attach to if it exists and is persistent; at most 15 bytes "
                    + "(default ${DEFAULT-VALUE}).")
    String tap;

    @Option(names = "--address", paramLabel = "CIDR", defaultValue = TapStack.Config.DEFAULT_CIDR,
            description = "jnet's IPv4 address and prefix on the TAP link (default ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "1500",
            description = "jnet's MTU in bytes (default ${DEFAULT-VALUE}); the kernel side keeps its own.")
    int mtu;

    @Option(names = "--impair", paramLabel = "SPEC",
            description = "Impair jnet's side of the TAP link (seeded): e.g. loss=2%%,reorder=1%%,dup=1%%,seed=7; keys loss,"
                    + " dup, corrupt, reorder, reorder-gap, reorder-delay, delay, jitter, rate, limit, seed; prefix egress./ingress."
                    + " for one direction. The report of what was done to which frame is printed at exit.")
    String impair;

    /** The impairment, parsed; null when none. */
    io.jnet.link.impair.ImpairmentConfig impairment() {
        if (impair == null) return null;
        try {
            return io.jnet.link.impair.ImpairmentConfig.parse(impair);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--impair: " + e.getMessage(), e);
        }
    }

    @Option(names = "--pcap", paramLabel = "FILE",
            description = "Capture every frame on the TAP, both directions, to this pcap file.")
    Path pcap;

    /**
     * The stack configuration, checked before any device is touched.
     *
     * @throws IllegalArgumentException naming the option: a bad interface name, address, prefix or MTU, or
     *     a capture file that cannot be written
     */
    TapStack.Config config() {
        if (mtu < TapDevice.MIN_MTU || mtu > TapDevice.MAX_MTU) {
            throw new IllegalArgumentException("--mtu must be " + TapDevice.MIN_MTU + ".." + TapDevice.MAX_MTU + ": " + mtu);
        }
        try {
            TapStack.Config.checkTapName(tap);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tap: " + e.getMessage(), e);
        }
        if (pcap != null) {
            try {
                OutputFiles.checkWritable(pcap);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--pcap: " + e.getMessage(), e);
            }
        }
        try {
            return new TapStack.Config(tap, address, mtu, pcap);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--address: " + e.getMessage(), e);
        }
    }

    /**
     * Opens the TAP stack for {@code config}, with {@code impairment} in front of the device when not null;
     * on failure prints why to {@code err}, prefixed with {@code command} (e.g. "jnet serve"), and returns null.
     */
    static TapStack open(TapStack.Config config, io.jnet.link.impair.ImpairmentConfig impairment, String command,
            java.io.PrintWriter err) {
        TapStack stack;
        try {
            stack = TapStack.open(config);
        } catch (java.io.IOException e) {
            err.println(command + ": " + TapOpenErrors.describe(config.tapName(), e));
            return null;
        }
        if (impairment != null) {
            try {
                stack.impair(impairment);
            } catch (RuntimeException e) {
                stack.close();
                throw e;
            }
        }
        return stack;
    }
}
