package io.jnet.drill.play;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** TCP options to and from their wire form, in the order given (RFC 9293 section 3.2). */
final class OptionCodec {
    private OptionCodec() {}

    /**
     * The options' bytes, padded with EOL bytes to a multiple of 4 (the data offset counts 32-bit words).
     *
     * @param ecrOffset added to every TS ecr, {@code sackBase} to every SACK block edge (both mod 2^32)
     */
    static byte[] encode(List<TcpOption> options, long ecrOffset, long sackBase) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (TcpOption o : options) {
            switch (o) {
                case TcpOption.Eol e -> out.write(0);
                case TcpOption.Nop n -> out.write(1);
                case TcpOption.Mss m -> {
                    out.write(2);
                    out.write(4);
                    put16(out, m.bytes());
                }
                case TcpOption.WindowScale w -> {
                    out.write(3);
                    out.write(3);
                    out.write(w.shift());
                }
                case TcpOption.SackPermitted s -> {
                    out.write(4);
                    out.write(2);
                }
                case TcpOption.Sack s -> {
                    out.write(5);
                    out.write(2 + 8 * s.blocks().size());
                    for (long[] b : s.blocks()) {
                        put32(out, Flow.u32(b[0] + sackBase));
                        put32(out, Flow.u32(b[1] + sackBase));
                    }
                }
                case TcpOption.Timestamps t -> {
                    out.write(8);
                    out.write(10);
                    put32(out, Flow.u32(t.val()));
                    put32(out, Flow.u32(t.ecr() + ecrOffset));
                }
                case TcpOption.Other x -> {
                    out.write(x.kind());
                    out.write(2 + x.data().length);
                    out.writeBytes(x.data());
                }
            }
        }
        while (out.size() % 4 != 0) out.write(0);
        return out.toByteArray();
    }

    /**
     * The options in {@code b[off, off+len)} as a list, SACK edges made relative to {@code sackBase}; trailing EOL
     * padding after the first EOL is dropped. Throws IllegalArgumentException for a malformed list.
     */
    static List<TcpOption> decode(byte[] b, int off, int len, long sackBase) {
        List<TcpOption> out = new ArrayList<>();
        int i = off, end = off + len;
        while (i < end) {
            int kind = b[i] & 0xFF;
            if (kind == 0) {
                out.add(new TcpOption.Eol());
                break;
            }
            if (kind == 1) {
                out.add(new TcpOption.Nop());
                i++;
                continue;
            }
            if (i + 1 >= end) throw new IllegalArgumentException("option kind " + kind + " without a length");
            int olen = b[i + 1] & 0xFF;
            if (olen < 2 || i + olen > end) throw new IllegalArgumentException("option kind " + kind + " with bad length " + olen);
            switch (kind) {
                case 2 -> out.add(new TcpOption.Mss(u16(b, i + 2)));
                case 3 -> out.add(new TcpOption.WindowScale(b[i + 2] & 0xFF));
                case 4 -> out.add(new TcpOption.SackPermitted());
                case 5 -> {
                    List<long[]> blocks = new ArrayList<>();
                    for (int k = i + 2; k + 8 <= i + olen; k += 8) {
                        blocks.add(new long[] {Flow.u32(u32(b, k) - sackBase), Flow.u32(u32(b, k + 4) - sackBase)});
                    }
                    out.add(new TcpOption.Sack(blocks));
                }
                case 8 -> out.add(new TcpOption.Timestamps(u32(b, i + 2), u32(b, i + 6)));
                default -> out.add(new TcpOption.Other(kind, java.util.Arrays.copyOfRange(b, i + 2, i + olen)));
            }
            i += olen;
        }
        return out;
    }

    /** The options in packetdrill's notation: {@code <mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7>}. */
    static String render(List<TcpOption> options) {
        StringBuilder sb = new StringBuilder("<");
        for (TcpOption o : options) {
            if (sb.length() > 1) sb.append(',');
            sb.append(switch (o) {
                case TcpOption.Eol e -> "eol";
                case TcpOption.Nop n -> "nop";
                case TcpOption.Mss m -> "mss " + m.bytes();
                case TcpOption.WindowScale w -> "wscale " + w.shift();
                case TcpOption.SackPermitted s -> "sackOK";
                case TcpOption.Sack s -> {
                    StringBuilder x = new StringBuilder("sack");
                    for (long[] b : s.blocks()) x.append(' ').append(b[0]).append(':').append(b[1]);
                    yield x.toString();
                }
                case TcpOption.Timestamps t -> "TS val " + t.val() + " ecr " + t.ecr();
                case TcpOption.Other x -> "kind " + x.kind() + " len " + (2 + x.data().length);
            });
        }
        return sb.append('>').toString();
    }

    private static void put16(ByteArrayOutputStream out, int v) {
        out.write(v >>> 8);
        out.write(v);
    }

    private static void put32(ByteArrayOutputStream out, long v) {
        out.write((int) (v >>> 24));
        out.write((int) (v >>> 16));
        out.write((int) (v >>> 8));
        out.write((int) v);
    }

    private static int u16(byte[] b, int i) { return ((b[i] & 0xFF) << 8) | (b[i + 1] & 0xFF); }

    private static long u32(byte[] b, int i) {
        return ((long) (b[i] & 0xFF) << 24) | ((b[i + 1] & 0xFF) << 16) | ((b[i + 2] & 0xFF) << 8) | (b[i + 3] & 0xFF);
    }
}
