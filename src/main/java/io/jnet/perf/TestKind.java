package io.jnet.perf;

import java.util.Locale;

/** The netperf tests this harness runs, with the unit each reports. */
public enum TestKind {
    /** Client sends, server receives; throughput of bytes received. */
    TCP_STREAM("TCP STREAM TEST", Unit.MEGABITS_PER_SECOND),
    /** Server sends, client receives ("STREAM" reversed); throughput of bytes received. */
    TCP_MAERTS("TCP MAERTS TEST", Unit.MEGABITS_PER_SECOND),
    /** One connection; a transaction is a request written and a full response read. */
    TCP_RR("TCP REQUEST/RESPONSE TEST", Unit.TRANSACTIONS_PER_SECOND),
    /** A transaction is connect, request, response, close. */
    TCP_CRR("TCP Connect/Request/Response TEST", Unit.TRANSACTIONS_PER_SECOND);

    /** The unit of a test's figure of merit. */
    public enum Unit {
        /** 10^6 bits per second of payload bytes received (netperf's default {@code -f m}). */
        MEGABITS_PER_SECOND("10^6bits/s"),
        /** Transactions per second. */
        TRANSACTIONS_PER_SECOND("Trans/s");

        private final String label;

        Unit(String label) { this.label = label; }

        /** Short label for tables, e.g. {@code 10^6bits/s}. */
        public String label() { return label; }
    }

    private final String banner;
    private final Unit unit;

    TestKind(String banner, Unit unit) {
        this.banner = banner;
        this.unit = unit;
    }

    /** netperf's banner words, e.g. {@code TCP STREAM TEST}. */
    public String banner() { return banner; }

    /** The unit of the figure of merit. */
    public Unit unit() { return unit; }

    /** True for the bulk transfer tests (STREAM, MAERTS). */
    public boolean isStream() { return unit == Unit.MEGABITS_PER_SECOND; }

    /**
     * Parses a netperf test name, case-insensitive ({@code tcp_rr}, {@code TCP_STREAM}).
     *
     * @throws IllegalArgumentException for other names, listing the valid ones
     */
    public static TestKind parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown test '" + s + "' (expected TCP_STREAM, TCP_MAERTS, TCP_RR or TCP_CRR)", e);
        }
    }
}
