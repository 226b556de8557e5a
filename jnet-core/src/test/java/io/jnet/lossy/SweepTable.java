package io.jnet.lossy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** The sweep's report: one row per case, printed as a fixed-width table. */
final class SweepTable {
    private final String title;
    private final String unit;
    private final List<TransferResult> rows = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    /** @param unit what {@link TransferResult#elapsedMs()} counts, e.g. {@code virtual ms} */
    SweepTable(String title, String unit) {
        this.title = title;
        this.unit = unit;
    }

    synchronized void add(TransferResult r) { rows.add(r); }

    /**
     * Runs {@code c} on virtual time ({@link VirtualTransfer#run(LossyCase)}), adds its row and checks it with
     * {@link #assertWithinBound}; a case that fails is listed under the table, then the failure is thrown on.
     */
    TransferResult runVirtual(LossyCase c) throws Exception {
        try {
            TransferResult r = VirtualTransfer.run(c);
            add(r);
            assertWithinBound(c, r);
            return r;
        } catch (Throwable t) {
            fail(c, t);
            throw t;
        }
    }

    /** The transfer of {@code c} took at most its bound, and a case without loss dropped no frame. */
    static void assertWithinBound(LossyCase c, TransferResult r) {
        assertThat(r.elapsedMs()).as("virtual ms of %s", c).isLessThanOrEqualTo(r.boundMs());
        if (c.loss() == 0) assertThat(r.dropped()).isZero();
    }

    synchronized void fail(LossyCase c, Throwable t) {
        String msg = String.valueOf(t.getMessage());
        failures.add(c.name() + ": " + msg.lines().findFirst().orElse(""));
    }

    synchronized List<TransferResult> rows() { return List.copyOf(rows); }

    synchronized String render() {
        StringBuilder out = new StringBuilder();
        out.append(title).append('\n');
        String head = String.format(Locale.ROOT, "%-4s %5s %4s %7s %6s %5s %6s %10s %10s %7s %8s %7s %8s %7s %6s %6s %7s",
                "#", "loss", "dup", "reorder", "write", "buf", "bytes", unit, "bound", "used", "retrans", "RTOs", "fastrtx",
                "frames", "drop", "dup'd", "real ms");
        out.append(head).append('\n');
        int n = 0;
        long worstPermille = 0;
        for (TransferResult r : rows) {
            LossyCase c = r.lossyCase();
            long permille = r.elapsedMs() * 1000 / Math.max(1, r.boundMs());
            worstPermille = Math.max(worstPermille, permille);
            out.append(String.format(Locale.ROOT, "%-4d %5s %4s %7s %6s %5s %6s %10d %10d %6.1f%% %8d %7d %8d %7d %6d %6d %7d",
                    ++n, LossyCase.percent(c.loss()), LossyCase.percent(c.duplicate()), LossyCase.percent(c.reorder()),
                    LossyCase.size(c.writeSize()), LossyCase.size(c.buffer()), LossyCase.size(c.bytes()), r.elapsedMs(),
                    r.boundMs(), permille / 10.0, r.retransmitted(), r.timeouts(), r.fastRetransmits(), r.frames(), r.dropped(),
                    r.duplicated(), r.realMs())).append('\n');
        }
        long real = rows.stream().mapToLong(TransferResult::realMs).sum();
        out.append(String.format(Locale.ROOT, "%d cases passed, %d failed; largest share of the bound used %.1f%%; %d real ms%n",
                rows.size(), failures.size(), worstPermille / 10.0, real));
        for (String f : failures) out.append("FAILED ").append(f).append('\n');
        return out.toString();
    }

    static long sum(Collection<TransferResult> rows, java.util.function.ToLongFunction<TransferResult> f) {
        return rows.stream().mapToLong(f).sum();
    }
}
