package io.jnet.perf;

/**
 * What the two sides of one UDP_STREAM run counted: netperf's send line (messages sent "Okay", send
 * "Errors", the sender's elapsed time) and its receive line (messages received). UDP has no flow control,
 * so the receiver may get fewer than were sent; the difference was dropped on the way (a full receive
 * queue, a full device queue) and is the loss.
 *
 * @param sent               datagrams the stack accepted from the sender
 * @param sendErrors         sends the stack refused for lack of buffer space (ENOBUFS, EAGAIN), not retried
 * @param received           datagrams the receiver read
 * @param sendElapsedSeconds the sender's timed loop in seconds
 */
public record DatagramCounts(long sent, long sendErrors, long received, double sendElapsedSeconds)
        implements java.io.Serializable {

    /** Checks that counts are not negative and that no more were received than sent. */
    public DatagramCounts {
        if (sent < 0 || sendErrors < 0 || received < 0) {
            throw new IllegalArgumentException("negative count: sent " + sent + ", errors " + sendErrors + ", received " + received);
        }
        if (received > sent) throw new IllegalArgumentException("received " + received + " of " + sent + " datagrams sent");
    }

    /** Datagrams sent but not received. */
    public long lost() { return sent - received; }
}
