package io.jnet.app.rdsstress;

/**
 * One direction of one (sender, receiver) pair at the end of a run.
 *
 * @param sender     the sending RDS socket, address:port
 * @param receiver   the receiving RDS socket, address:port
 * @param what       "requests" or "acks"
 * @param sent       messages the sender numbered (1..sent); -1 when the sender's count never arrived
 * @param received   distinct messages received with a good checksum
 * @param lost       sent - received (0 when unknown)
 * @param duplicated messages received again
 * @param reordered  messages received out of sequence
 * @param corrupt    messages with a bad checksum or header
 */
public record PairResult(String sender, String receiver, String what, long sent, long received, long lost,
                         long duplicated, long reordered, long corrupt) {

    static PairResult of(String sender, String receiver, String what, long sent, long received, long duplicated,
                         long reordered, long corrupt) {
        long lost = sent < 0 ? 0 : Math.max(0, sent - received);
        return new PairResult(sender, receiver, what, sent, received, lost, duplicated, reordered, corrupt);
    }

    /** True when the count arrived and every message came once, in order, intact. */
    public boolean ok() {
        return sent >= 0 && received == sent && duplicated == 0 && reordered == 0 && corrupt == 0;
    }

    /** One line, e.g. {@code 192.0.2.1:4000 -> 192.0.2.2:4000 requests: sent 10 received 10 lost 0 ...}. */
    public String describe() {
        return sender + " -> " + receiver + " " + what + ": sent " + (sent < 0 ? "unknown (no END_ACK)" : sent)
                + " received " + received + " lost " + lost + " duplicated " + duplicated + " reordered " + reordered
                + " corrupt " + corrupt + (ok() ? "" : "  FAIL");
    }
}
