package io.jnet.wire;

/**
 * TCP options (RFC 9293 3.1; MSS; RFC 7323 window scale and timestamps; RFC 2018 SACK), parsed into a
 * reusable holder and written in Linux's order.
 *
 * <p>Parsing follows Linux's tcp_parse_options: unknown options are skipped; EOL ends parsing; an option
 * whose length is below 2 or runs past the header also ends parsing, and what was parsed before it stands
 * (Linux takes such a segment; so does jnet's stack, while {@link TcpRepr} reports it as BAD_OPTION).
 */
public final class TcpOptions {
    public static final int KIND_EOL = 0, KIND_NOP = 1, KIND_MSS = 2, KIND_WSCALE = 3, KIND_SACK_PERM = 4, KIND_SACK = 5,
            KIND_TIMESTAMP = 8;
    public static final int MAX_SACK_BLOCKS = 4;

    /** MSS option value in bytes, or -1 when absent or 0 (Linux ignores an MSS option of 0). */
    public int mss = -1;
    /** Window scale shift count, or -1 when absent (values above 14 are clamped to 14 as RFC 7323 2.3 says). */
    public int windowScale = -1;
    public boolean sackPermitted;
    public boolean hasTimestamp;
    public int tsVal;
    public int tsEcr;
    /** Number of SACK blocks present; block i is [sackLeft[i], sackRight[i]). */
    public int sackBlocks;
    public final int[] sackLeft = new int[MAX_SACK_BLOCKS];
    public final int[] sackRight = new int[MAX_SACK_BLOCKS];

    public void clear() {
        mss = -1;
        windowScale = -1;
        sackPermitted = false;
        hasTimestamp = false;
        tsVal = tsEcr = 0;
        sackBlocks = 0;
    }

    /**
     * Parses the option bytes {@code b[off, off+len)} (the header bytes after the 20 fixed ones).
     *
     * @return true when the whole area is well formed; false when parsing stopped at a malformed option
     *     (the options before it are kept, as Linux keeps them)
     */
    public boolean parse(byte[] b, int off, int len) {
        clear();
        int i = off;
        int end = off + len;
        while (i < end) {
            int kind = b[i] & 0xFF;
            if (kind == KIND_EOL) return true;
            if (kind == KIND_NOP) { i++; continue; }
            if (i + 1 >= end) return false;
            int olen = b[i + 1] & 0xFF;
            if (olen < 2 || i + olen > end) return false;
            switch (kind) {
                case KIND_MSS -> {
                    // an MSS of 0 is ignored, as Linux does (tcp_parse_options): the default of 536 applies
                    if (olen == 4 && Bytes.u16(b, i + 2) != 0) mss = Bytes.u16(b, i + 2);
                }
                case KIND_WSCALE -> { if (olen == 3) windowScale = Math.min(14, b[i + 2] & 0xFF); }
                case KIND_SACK_PERM -> { if (olen == 2) sackPermitted = true; }
                case KIND_TIMESTAMP -> {
                    if (olen == 10) {
                        hasTimestamp = true;
                        tsVal = Bytes.i32(b, i + 2);
                        tsEcr = Bytes.i32(b, i + 6);
                    }
                }
                case KIND_SACK -> {
                    if (olen >= 10 && (olen - 2) % 8 == 0) {
                        int n = Math.min(MAX_SACK_BLOCKS, (olen - 2) / 8);
                        for (int k = 0; k < n; k++) {
                            sackLeft[k] = Bytes.i32(b, i + 2 + 8 * k);
                            sackRight[k] = Bytes.i32(b, i + 6 + 8 * k);
                        }
                        sackBlocks = n;
                    }
                }
                default -> { /* unknown: skip */ }
            }
            i += olen;
        }
        return true;
    }

    /** Bytes {@link #write} will produce (a multiple of 4). */
    public int writtenLength() {
        int n = 0;
        if (mss >= 0) n += 4;
        if (hasTimestamp) n += 12; // (SACK_PERM or NOP NOP) + TS
        else if (sackPermitted) n += 4; // NOP NOP SACK_PERM
        if (windowScale >= 0) n += 4;
        if (sackBlocks > 0) n += 4 + 8 * sackBlocks;
        return n;
    }

    /**
     * Writes the options in Linux's order (tcp_options_write): MSS; SACK_PERM+TS or NOP,NOP,TS or
     * NOP,NOP,SACK_PERM; NOP,WS; NOP,NOP,SACK blocks. Returns bytes written ({@link #writtenLength()}).
     */
    public int write(byte[] b, int off) {
        int i = off;
        if (mss >= 0) {
            b[i] = KIND_MSS; b[i + 1] = 4; Bytes.put16(b, i + 2, mss); i += 4;
        }
        if (hasTimestamp) {
            if (sackPermitted) {
                b[i] = KIND_SACK_PERM; b[i + 1] = 2;
            } else {
                b[i] = KIND_NOP; b[i + 1] = KIND_NOP;
            }
            b[i + 2] = KIND_TIMESTAMP; b[i + 3] = 10;
            Bytes.put32(b, i + 4, tsVal);
            Bytes.put32(b, i + 8, tsEcr);
            i += 12;
        } else if (sackPermitted) {
            b[i] = KIND_NOP; b[i + 1] = KIND_NOP; b[i + 2] = KIND_SACK_PERM; b[i + 3] = 2; i += 4;
        }
        if (windowScale >= 0) {
            b[i] = KIND_NOP; b[i + 1] = KIND_WSCALE; b[i + 2] = 3; b[i + 3] = (byte) windowScale; i += 4;
        }
        if (sackBlocks > 0) {
            b[i] = KIND_NOP; b[i + 1] = KIND_NOP; b[i + 2] = KIND_SACK; b[i + 3] = (byte) (2 + 8 * sackBlocks);
            i += 4;
            for (int k = 0; k < sackBlocks; k++) {
                Bytes.put32(b, i, sackLeft[k]);
                Bytes.put32(b, i + 4, sackRight[k]);
                i += 8;
            }
        }
        return i - off;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        if (mss >= 0) sb.append("mss ").append(mss).append(',');
        if (sackPermitted) sb.append("sackOK,");
        if (hasTimestamp) sb.append("TS val ").append(Integer.toUnsignedString(tsVal)).append(" ecr ")
                .append(Integer.toUnsignedString(tsEcr)).append(',');
        if (windowScale >= 0) sb.append("wscale ").append(windowScale).append(',');
        for (int k = 0; k < sackBlocks; k++) sb.append("sack ").append(Integer.toUnsignedString(sackLeft[k])).append(':')
                .append(Integer.toUnsignedString(sackRight[k])).append(',');
        if (sb.length() > 1) sb.setLength(sb.length() - 1);
        return sb.append(']').toString();
    }
}
