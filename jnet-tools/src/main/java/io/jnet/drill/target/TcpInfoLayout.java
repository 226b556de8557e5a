package io.jnet.drill.target;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Linux's {@code struct tcp_info} ({@code include/uapi/linux/tcp.h}, the bytes {@code getsockopt(TCP_INFO)} returns)
 * on x86_64: little-endian, natural alignment, 280 bytes as of Linux 6.18 (248 from 6.7, 240 from 6.2, 232 from 5.4).
 * An older kernel returns a prefix; a field that ends beyond the returned length is absent and reading it throws
 * {@link FieldAbsentException}.
 *
 * <p>Field names are the kernel's ({@code tcpi_rto}); the {@code tcpi_} prefix may be left out ({@code rto}). Units are
 * the kernel's: {@code tcpi_rto}, {@code tcpi_ato}, {@code tcpi_rtt}, {@code tcpi_rttvar}, {@code tcpi_rcv_rtt},
 * {@code tcpi_min_rtt} in microseconds; {@code tcpi_last_*} in milliseconds; {@code *_rate} in bytes per second;
 * {@code tcpi_busy_time}, {@code tcpi_rwnd_limited}, {@code tcpi_sndbuf_limited} in microseconds;
 * {@code tcpi_total_rto_time} in milliseconds; windows and MSS in bytes; {@code tcpi_snd_cwnd} in segments.
 *
 * <p>Bit-fields, as GCC lays them out on x86_64 (first declared in the least significant bits): byte 6 holds
 * {@code tcpi_snd_wscale} (bits 0-3) and {@code tcpi_rcv_wscale} (bits 4-7); byte 7 holds
 * {@code tcpi_delivery_rate_app_limited} (bit 0) and {@code tcpi_fastopen_client_fail} (bits 1-2); the 32-bit word at
 * 276 holds {@code tcpi_ecn_mode} (bits 0-1), {@code tcpi_accecn_opt_seen} (bits 2-3), {@code tcpi_accecn_fail_mode}
 * (bits 4-7) and {@code tcpi_options2} (bits 8-31).
 *
 * <p>Values are unsigned, except the 64-bit fields, which come back as Java's {@code long} bits (an unlimited
 * {@code tcpi_max_pacing_rate}, {@code ~0}, is -1). Thread-safe (no state).
 */
public final class TcpInfoLayout {

    /** {@code sizeof(struct tcp_info)} of the newest layout here (Linux 6.18), bytes. */
    public static final int SIZE = 280;

    /**
     * One field: its byte {@code offset}, its storage {@code width} in bytes (1, 2, 4 or 8), and for a bit-field the
     * {@code bitOffset} within that storage unit and {@code bits} (0 for a whole field).
     */
    public record Field(String name, int offset, int width, int bitOffset, int bits) {
        /** The returned length (bytes) from which this field is present: its storage unit's end. */
        public int end() { return offset + width; }

        /** True for a bit-field. */
        public boolean isBitField() { return bits != 0; }
    }

    /** A field ends beyond the bytes the kernel returned: that kernel is older than the field. */
    public static final class FieldAbsentException extends RuntimeException {
        private final String field;
        private final int length;

        FieldAbsentException(Field f, int length) {
            super(f.name() + " needs " + f.end() + " bytes of struct tcp_info but only " + length
                    + " were returned (a kernel older than that field)");
            this.field = f.name();
            this.length = length;
        }

        /** The field asked for. */
        public String field() { return field; }

        /** The length that was available, bytes. */
        public int length() { return length; }
    }

    private static final Map<String, Field> FIELDS = new LinkedHashMap<>();

    static {
        int at = 0;
        for (String n : new String[] {"state", "ca_state", "retransmits", "probes", "backoff", "options"}) {
            add(n, at++, 1);
        }
        bits("snd_wscale", 6, 1, 0, 4);
        bits("rcv_wscale", 6, 1, 4, 4);
        bits("delivery_rate_app_limited", 7, 1, 0, 1);
        bits("fastopen_client_fail", 7, 1, 1, 2);
        at = 8;
        for (String n : new String[] {"rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost", "retrans",
                "fackets", "last_data_sent", "last_ack_sent", "last_data_recv", "last_ack_recv", "pmtu",
                "rcv_ssthresh", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering", "rcv_rtt",
                "rcv_space", "total_retrans"}) {
            add(n, at, 4);
            at += 4;
        }
        at = 104; // 8-aligned after the 24 words from 8
        for (String n : new String[] {"pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received"}) {
            add(n, at, 8);
            at += 8;
        }
        for (String n : new String[] {"segs_out", "segs_in", "notsent_bytes", "min_rtt", "data_segs_in",
                "data_segs_out"}) {
            add(n, at, 4);
            at += 4;
        }
        for (String n : new String[] {"delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited"}) {
            add(n, at, 8);
            at += 8;
        }
        add("delivered", at, 4);
        add("delivered_ce", at + 4, 4);
        at += 8;
        add("bytes_sent", at, 8);
        add("bytes_retrans", at + 8, 8);
        at += 16;
        for (String n : new String[] {"dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd", "rcv_wnd", "rehash"}) {
            add(n, at, 4);
            at += 4;
        }
        add("total_rto", at, 2);
        add("total_rto_recoveries", at + 2, 2);
        add("total_rto_time", at + 4, 4);
        at += 8;
        for (String n : new String[] {"received_ce", "delivered_e1_bytes", "delivered_e0_bytes",
                "delivered_ce_bytes", "received_e1_bytes", "received_e0_bytes", "received_ce_bytes"}) {
            add(n, at, 4);
            at += 4;
        }
        bits("ecn_mode", at, 4, 0, 2);
        bits("accecn_opt_seen", at, 4, 2, 2);
        bits("accecn_fail_mode", at, 4, 4, 4);
        bits("options2", at, 4, 8, 24);
        if (at + 4 != SIZE) throw new ExceptionInInitializerError("tcp_info layout ends at " + (at + 4));
    }

    private TcpInfoLayout() {}

    private static void add(String name, int offset, int width) {
        bits(name, offset, width, 0, 0);
    }

    private static void bits(String name, int offset, int width, int bitOffset, int bits) {
        FIELDS.put("tcpi_" + name, new Field("tcpi_" + name, offset, width, bitOffset, bits));
    }

    /** Every field in declaration order. */
    public static List<Field> fields() {
        return Collections.unmodifiableList(new ArrayList<>(FIELDS.values()));
    }

    /**
     * The field named {@code name} ({@code tcpi_rto} or {@code rto}).
     *
     * @throws IllegalArgumentException when {@code struct tcp_info} has no such field
     */
    public static Field field(String name) {
        Objects.requireNonNull(name, "name");
        Field f = FIELDS.get(name.startsWith("tcpi_") ? name : "tcpi_" + name);
        if (f == null) throw new IllegalArgumentException("struct tcp_info has no field " + name);
        return f;
    }

    /** True when {@code name} is a field of {@code struct tcp_info}. */
    public static boolean has(String name) {
        return FIELDS.containsKey(name.startsWith("tcpi_") ? name : "tcpi_" + name);
    }

    /** True when {@code field} lies within the first {@code length} bytes (a kernel that returned that many has it). */
    public static boolean isPresent(String field, int length) {
        return field(field).end() <= length;
    }

    /**
     * Reads {@code field} from the bytes getsockopt(TCP_INFO) returned.
     *
     * @return the value, unsigned for fields narrower than 64 bits
     * @throws IllegalArgumentException for an unknown field
     * @throws FieldAbsentException when the field ends beyond {@code info.length}
     */
    public static long get(byte[] info, String field) {
        Field f = field(field);
        if (f.end() > info.length) throw new FieldAbsentException(f, info.length);
        long unit = 0;
        for (int i = f.width() - 1; i >= 0; i--) unit = (unit << 8) | (info[f.offset() + i] & 0xFF);
        if (!f.isBitField()) return unit;
        return (unit >>> f.bitOffset()) & ((1L << f.bits()) - 1);
    }

    /**
     * Writes {@code value} into {@code field}, leaving the other bits of a bit-field's storage unit as they are.
     *
     * @throws IllegalArgumentException for an unknown field, or a value that does not fit the field (negative values
     *     are accepted only for 64-bit fields)
     * @throws FieldAbsentException when the field ends beyond {@code info.length}
     */
    public static void set(byte[] info, String field, long value) {
        Field f = field(field);
        if (f.end() > info.length) throw new FieldAbsentException(f, info.length);
        int bitWidth = f.isBitField() ? f.bits() : f.width() * 8;
        if (bitWidth < 64 && (value < 0 || value >>> bitWidth != 0)) {
            throw new IllegalArgumentException(value + " does not fit " + f.name() + " (" + bitWidth + " bits)");
        }
        long unit = value;
        if (f.isBitField()) {
            long old = 0;
            for (int i = f.width() - 1; i >= 0; i--) old = (old << 8) | (info[f.offset() + i] & 0xFF);
            long mask = ((1L << f.bits()) - 1) << f.bitOffset();
            unit = (old & ~mask) | (value << f.bitOffset());
        }
        for (int i = 0; i < f.width(); i++) info[f.offset() + i] = (byte) (unit >>> (8 * i));
    }

    /** A zeroed {@code struct tcp_info} of {@link #SIZE} bytes, to fill with {@link #set}. */
    public static byte[] newInfo() {
        return new byte[SIZE];
    }
}
