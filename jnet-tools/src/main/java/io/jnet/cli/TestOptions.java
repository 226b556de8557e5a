package io.jnet.cli;

import picocli.CommandLine.Option;

/**
 * netperf's test-specific options. They may be given among the other options or, as with netperf, after
 * a {@code --}: {@code jnet perf -t TCP_RR -l 2 -- -r 64,1024 -D}. Values stay null when not given.
 */
public final class TestOptions {

    @Option(names = "-m", paramLabel = "BYTES",
            description = "TCP_STREAM/MAERTS/SENDFILE: bytes per write (sendfile call) of the data sender (default 64K); "
                    + "UDP_STREAM: bytes per datagram (default 1472, at most 65507). "
                    + "Suffixes K/M/G = 2^10/2^20/2^30, k/m/g = 10^3/10^6/10^9.")
    String sendSize;

    @Option(names = "-M", paramLabel = "BYTES",
            description = "TCP_STREAM/MAERTS/SENDFILE: bytes per read of the data receiver (default 128K).")
    String recvSize;

    @Option(names = "-r", paramLabel = "REQ[,RESP]",
            description = "TCP_RR/CRR, UDP_RR: request and response sizes in bytes (default 1,1; UDP at most 65507). "
                    + "One value sets both; ',RESP' sets only the response.")
    String requestResponse;

    @Option(names = "-s", paramLabel = "SEND[,RECV]",
            description = "Client (local) SO_SNDBUF,SO_RCVBUF in bytes, set before connect. One value sets both. "
                    + "Default: the stack's default with autotuning.")
    String localBuffers;

    @Option(names = "-S", paramLabel = "SEND[,RECV]",
            description = "Server (remote) SO_SNDBUF,SO_RCVBUF in bytes. One value sets both.")
    String remoteBuffers;

    @Option(names = "-D", description = "Set TCP_NODELAY (disable Nagle) on both ends of the TCP tests.")
    Boolean noDelay;

    /** Overwrites this object's fields with those {@code other} sets. */
    void overrideWith(TestOptions other) {
        if (other.sendSize != null) sendSize = other.sendSize;
        if (other.recvSize != null) recvSize = other.recvSize;
        if (other.requestResponse != null) requestResponse = other.requestResponse;
        if (other.localBuffers != null) localBuffers = other.localBuffers;
        if (other.remoteBuffers != null) remoteBuffers = other.remoteBuffers;
        if (other.noDelay != null) noDelay = other.noDelay;
    }
}
