package io.jnet.link;

import java.util.concurrent.atomic.LongAdder;

/** Per-device counters, named as Linux's {@code /sys/class/net/DEV/statistics/*}. */
public final class DeviceStats {
    public final LongAdder rxPackets = new LongAdder();
    public final LongAdder rxBytes = new LongAdder();
    public final LongAdder rxDropped = new LongAdder();
    public final LongAdder rxErrors = new LongAdder();
    public final LongAdder txPackets = new LongAdder();
    public final LongAdder txBytes = new LongAdder();
    public final LongAdder txDropped = new LongAdder();
    public final LongAdder txErrors = new LongAdder();

    public void countRx(int bytes) { rxPackets.increment(); rxBytes.add(bytes); }
    public void countTx(int bytes) { txPackets.increment(); txBytes.add(bytes); }

    @Override
    public String toString() {
        return "rx_packets=" + rxPackets.sum() + " rx_bytes=" + rxBytes.sum() + " rx_dropped=" + rxDropped.sum()
                + " rx_errors=" + rxErrors.sum() + " tx_packets=" + txPackets.sum() + " tx_bytes=" + txBytes.sum()
                + " tx_dropped=" + txDropped.sum() + " tx_errors=" + txErrors.sum();
    }
}
