package io.jnet.app.rdsstress;

import java.util.BitSet;

/**
 * The receiving end's check of one direction of one (sender, receiver) pair: messages are numbered from 1 by the
 * sender and RDS must deliver each once, in order. A message seen before is counted as a duplicate; a new one
 * whose number is not one above the highest so far is counted as reordered (early: some before it are missing,
 * or late: a higher one came first); a message whose checksum
 * does not match is counted as corrupt and otherwise ignored. Lost messages are known once the sender says how
 * many it sent ({@link #result}). Confined to the receiving thread.
 */
public final class PairCheck {
    private final BitSet seen = new BitSet();
    private long expected = 1;
    private long received;
    private long duplicated;
    private long reordered;
    private long corrupt;
    /** Messages numbered before the first one this check saw, for a receiver that joined mid-run; 0 else. */
    private long skipped;

    /** A check for all messages from 1. */
    public PairCheck() {}

    /**
     * A check for a receiver that joined mid-run (it restarted, and never heard the sender's HELLO): the sender's
     * messages before {@code first} are not this receiver's to count, and {@code first} is not reordered.
     */
    public static PairCheck joinedAt(long first) {
        PairCheck c = new PairCheck();
        if (first > 1 && first <= Integer.MAX_VALUE) {
            c.expected = first;
            c.skipped = first - 1;
        }
        return c;
    }

    /** Messages numbered before the first one seen by a check that joined mid-run ({@link #joinedAt}); 0 else. */
    public long skipped() { return skipped; }

    /** Accounts one well-formed message numbered {@code seq} (from 1). */
    public void accept(long seq) {
        if (seq < 1 || seq > Integer.MAX_VALUE) {
            reordered++;
            return;
        }
        int i = (int) seq;
        if (seen.get(i)) {
            duplicated++;
            return;
        }
        seen.set(i);
        received++;
        if (seq != expected) reordered++;
        expected = Math.max(expected, seq + 1);
    }

    /** Accounts a message whose checksum or magic is wrong. */
    public void corrupt() { corrupt++; }

    public long received() { return received; }

    public long duplicated() { return duplicated; }

    public long reordered() { return reordered; }

    public long corruptCount() { return corrupt; }

    /** The pair's result once the sender said it sent messages 1..{@code sent}. */
    public PairResult result(String sender, String receiver, String what, long sent) {
        return PairResult.of(sender, receiver, what, sent < 0 ? sent : Math.max(0, sent - skipped), received,
                duplicated, reordered, corrupt);
    }
}
