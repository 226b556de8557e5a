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
    /**
     * SACK blocks an option can hold at most: (40 - 2) / 8 in the 40-byte option area (RFC 2018 3); with timestamps
     * 3 fit (Linux TCP_NUM_SACKS is 4, tcp_established_options takes what fits).
     */
    public static final int MAX_SACK_BLOCKS = 4;
    /** Bytes of option space in a TCP header (Linux MAX_TCP_OPTION_SPACE). */
    public static final int MAX_OPTION_SPACE = Tcp.MAX_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH;

    /** MSS option value in bytes, or -1 when absent or 0 (Linux ignores an MSS option of 0). */
    public int mss = -1;
    /** Window scale shift count, or -1 when absent (values above 14 are clamped to 14 as RFC 7323 2.3 says). */
    public int windowScale = -1;
    public boolean sackPermitted;
    public boolean hasTimestamp;
    public int tsVal;
    public int tsEcr;
    /**
     * Number of SACK blocks present, 0..{@link #MAX_SACK_BLOCKS}; block i is [sackLeft[i], sackRight[i]) as sent
     * (nothing about the edges is checked here: that is the sender's scoreboard's job, Linux tcp_is_sackblock_valid).
     * When writing, only the blocks that fit in the option area after the other options go out.
     */
    public int sackBlocks;
    /**
     * The last parse met a SACK option whose length is not 2 + 8n for some n &gt;= 1 (RFC 2018 3): it was ignored,
     * as Linux's tcp_parse_options ignores it; the stack counts it (TcpExtJnetTCPSACKOptionMalformed).
     */
    public boolean sackMalformed;
    public final int[] sackLeft = new int[MAX_SACK_BLOCKS];
    public final int[] sackRight = new int[MAX_SACK_BLOCKS];

    public void clear() {
        mss = -1;
        windowScale = -1;
        sackPermitted = false;
        hasTimestamp = false;
        tsVal = tsEcr = 0;
        sackBlocks = 0;
        sackMalformed = false;
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
                // a SACK-permitted option of another length is ignored (Linux: opsize == TCPOLEN_SACK_PERM)
                case KIND_SACK_PERM -> { if (olen == 2) sackPermitted = true; }
                case KIND_TIMESTAMP -> {
                    if (olen == 10) {
                        hasTimestamp = true;
                        tsVal = Bytes.i32(b, i + 2);
                        tsEcr = Bytes.i32(b, i + 6);
                    }
                }
                case KIND_SACK -> {
                    // Linux: opsize >= TCPOLEN_SACK_BASE + TCPOLEN_SACK_PERBLOCK and a whole number of blocks; the
                    // option area bounds it to 4 blocks (olen <= 40), the min() only guards the arrays
                    if (olen >= 10 && (olen - 2) % 8 == 0) {
                        int n = Math.min(MAX_SACK_BLOCKS, (olen - 2) / 8);
                        for (int k = 0; k < n; k++) {
                            sackLeft[k] = Bytes.i32(b, i + 2 + 8 * k);
                            sackRight[k] = Bytes.i32(b, i + 6 + 8 * k);
                        }
                        sackBlocks = n;
                    } else {
                        sackMalformed = true;
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
        int n = lengthBeforeSack();
        int blocks = sackBlocksToWrite(n);
        if (blocks > 0) n += 4 + 8 * blocks;
        return n;
    }

    /** Bytes of the options written before the SACK blocks. */
    private int lengthBeforeSack() {
        int n = 0;
        if (mss >= 0) n += 4;
        if (hasTimestamp) n += 12; // (SACK_PERM or NOP NOP) + TS
        else if (sackPermitted) n += 4; // NOP NOP SACK_PERM
        if (windowScale >= 0) n += 4;
        return n;
    }

    /**
     * SACK blocks that {@link #write} puts out: {@link #sackBlocks}, cut to what fits in the option space left
     * after {@code used} bytes (Linux tcp_established_options: (remaining - TCPOLEN_SACK_BASE_ALIGNED) /
     * TCPOLEN_SACK_PERBLOCK), so 3 with timestamps, 4 without; the first blocks are kept (the most recent).
     */
    private int sackBlocksToWrite(int used) {
        if (sackBlocks <= 0) return 0;
        return Math.max(0, Math.min(Math.min(sackBlocks, MAX_SACK_BLOCKS), (MAX_OPTION_SPACE - used - 4) / 8));
    }

    /** SACK blocks {@link #write} puts out (see {@link #sackBlocks}). */
    public int sackBlocksWritten() { return sackBlocksToWrite(lengthBeforeSack()); }

    /**
     * Writes the options in Linux's order (tcp_options_write): MSS; SACK_PERM+TS or NOP,NOP,TS or
     * NOP,NOP,SACK_PERM; NOP,WS; NOP,NOP,SACK blocks (as many as fit, {@link #sackBlocksWritten()}). Returns bytes
     * written ({@link #writtenLength()}).
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
        int blocks = sackBlocksToWrite(i - off);
        if (blocks > 0) {
            b[i] = KIND_NOP; b[i + 1] = KIND_NOP; b[i + 2] = KIND_SACK; b[i + 3] = (byte) (2 + 8 * blocks);
            i += 4;
            for (int k = 0; k < blocks; k++) {
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
