package io.jnet.dns;

/**
 * A line of a hosts(5) or resolv.conf(5) text that was left out, and why: glibc skips such lines without a word,
 * jnet keeps them so a caller can report them.
 *
 * @param number the line's number, from 1
 * @param text the line as written
 * @param reason what was wrong with it, e.g. {@code "not an IPv4 or IPv6 address: 300.1.1.1"}
 */
public record IgnoredLine(int number, String text, String reason) {
    @Override
    public String toString() { return "line " + number + ": " + reason + ": " + text; }
}
