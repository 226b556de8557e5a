package io.jnet.link.pcap;

import io.jnet.buffer.PacketBuffer;

/**
 * Completes a frame before it is captured. Some paths leave work for later that a capture must show
 * done: loopback skips computing checksums (Linux CHECKSUM_PARTIAL/CHECKSUM_UNNECESSARY), so a sniffer on
 * loopback asks the stack to fill them in, as tcpdump would otherwise report bad checksums.
 *
 * <p>{@link PcapSniffer} calls {@link #finish} on its own copy of each frame (data starting at the
 * Ethernet header), never on the frame that is forwarded; the finisher may change the copy's bytes in
 * place. It is called from the transmitting and the receiving threads, possibly concurrently. An
 * exception thrown here is counted by the sniffer and the copy is captured as it is.
 */
@FunctionalInterface
public interface FrameFinisher {
    /** Completes {@code frame} in place (e.g. computes IPv4/TCP/UDP checksums). */
    void finish(PacketBuffer frame);
}
