package io.jnet.drill.script;

/** The ECN field of a packet's IP header as a script marks it ({@code [ect0]} ...). */
public enum Ecn {
    /** {@code noecn}: Not-ECT, 00. */
    NO_ECN("noecn"),
    /** {@code ect0}: ECT(0), 10. */
    ECT0("ect0"),
    /** {@code ect1}: ECT(1), 01. */
    ECT1("ect1"),
    /** {@code ce}: Congestion Experienced, 11. */
    CE("ce"),
    /** {@code ect01}: either ECT(0) or ECT(1) (outbound packets only). */
    ECT01("ect01");

    private final String keyword;

    Ecn(String keyword) {
        this.keyword = keyword;
    }

    /** The script's word for it. */
    public String keyword() {
        return keyword;
    }

    /** The mark a script word names, or null. */
    static Ecn byKeyword(String word) {
        for (Ecn e : values()) {
            if (e.keyword.equals(word)) return e;
        }
        return null;
    }
}
