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
    TCP_CRR("TCP Connect/Request/Response TEST", Unit.TRANSACTIONS_PER_SECOND),
    /** TCP_STREAM sending a file with sendfile(2) instead of send(2); throughput of bytes received. */
    TCP_SENDFILE("TCP SENDFILE TEST", Unit.MEGABITS_PER_SECOND),
    /** Client sends datagrams, server receives; no flow control: throughput of what the receiver got. */
    UDP_STREAM("UDP UNIDIRECTIONAL SEND TEST", Unit.MEGABITS_PER_SECOND),
    /** A transaction is a request datagram sent and a response datagram received. */
    UDP_RR("UDP REQUEST/RESPONSE TEST", Unit.TRANSACTIONS_PER_SECOND);

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

    /** True for the bulk transfer tests (TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, UDP_STREAM). */
    public boolean isStream() { return unit == Unit.MEGABITS_PER_SECOND; }

    /** True for the tests over UDP (UDP_STREAM, UDP_RR), whose messages are single datagrams. */
    public boolean isUdp() { return this == UDP_STREAM || this == UDP_RR; }

    /**
     * Parses a netperf test name, case-insensitive ({@code tcp_rr}, {@code TCP_STREAM}). netperf's AF_UNIX names
     * are not test kinds of their own: see {@link #unixAlias}.
     *
     * @throws IllegalArgumentException for other names, listing the valid ones
     */
    public static TestKind parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown test '" + s
                    + "' (expected TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, TCP_RR, TCP_CRR, UDP_STREAM or UDP_RR, or the"
                    + " AF_UNIX names STREAM_STREAM and STREAM_RR)", e);
        }
    }

    /**
     * netperf's names of its AF_UNIX stream tests (nettest_unix.c, built with {@code --enable-unixdomain}):
     * {@code STREAM_STREAM} is the byte stream of TCP_STREAM and {@code STREAM_RR} the transactions of TCP_RR,
     * over AF_UNIX stream sockets instead of TCP. Case-insensitive.
     *
     * @return the test {@code s} stands for over AF_UNIX paths, or null when {@code s} is not such a name
     */
    public static TestKind unixAlias(String s) {
        return switch (s.trim().toUpperCase(Locale.ROOT)) {
            case "STREAM_STREAM" -> TCP_STREAM;
            case "STREAM_RR" -> TCP_RR;
            default -> null;
        };
    }
}
