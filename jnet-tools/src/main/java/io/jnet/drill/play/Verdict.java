package io.jnet.drill.play;

/**
 * How a script played.
 *
 * @param status pass, fail (the stack did not do what the script says) or unsupported (the script uses what the
 *     player cannot play)
 * @param line the script line of the first mismatch or unsupported construct; 0 for a pass
 * @param message what went wrong, for a user: the expected and the actual packet or result, and when
 * @param micros the script time of the failure (µs since the script started), or of the end for a pass
 */
public record Verdict(Status status, int line, String message, long micros) {
    public enum Status { PASS, FAIL, UNSUPPORTED }

    static Verdict pass(long micros) { return new Verdict(Status.PASS, 0, "", micros); }
}
