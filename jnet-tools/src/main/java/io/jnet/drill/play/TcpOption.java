package io.jnet.drill.play;

import java.util.List;

/** One TCP option as a script writes it, in the order written (RFC 9293 section 3.2, RFC 7323, RFC 2018). */
public sealed interface TcpOption {
    /** End of option list (kind 0). */
    record Eol() implements TcpOption {}

    /** No-operation (kind 1). */
    record Nop() implements TcpOption {}

    /** Maximum segment size in bytes (kind 2). */
    record Mss(int bytes) implements TcpOption {}

    /** Window scale shift count (kind 3). */
    record WindowScale(int shift) implements TcpOption {}

    /** SACK permitted (kind 4). */
    record SackPermitted() implements TcpOption {}

    /** SACK blocks (kind 5), each {start, end} in the script's relative sequence space. */
    record Sack(List<long[]> blocks) implements TcpOption {}

    /** Timestamps (kind 8): TS val and TS ecr as the script writes them. */
    record Timestamps(long val, long ecr) implements TcpOption {}

    /** Any other option, its kind and data bytes as given. */
    record Other(int kind, byte[] data) implements TcpOption {}
}
