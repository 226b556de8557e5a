package io.jnet.link.impair;

/**
 * The two directions an {@link ImpairedDevice} impairs independently: {@link #EGRESS} for frames the
 * namespace transmits through the device, {@link #INGRESS} for frames the wrapped device receives.
 * (Linux netem impairs egress only; an ingress netem needs an IFB device, which this makes unnecessary.)
 */
public enum Direction {
    /** Frames handed to {@link ImpairedDevice#transmit}, on their way to the wrapped device. */
    EGRESS("egress"),
    /** Frames received from the wrapped device, on their way to the namespace. */
    INGRESS("ingress");

    private final String label;

    Direction(String label) { this.label = label; }

    /** Lower-case name, as used in the configuration prefix ({@code egress.loss=1%}) and the report. */
    public String label() { return label; }

    @Override
    public String toString() { return label; }
}
