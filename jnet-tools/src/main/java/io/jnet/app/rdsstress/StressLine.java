package io.jnet.app.rdsstress;

import java.util.Locale;

/**
 * One line of rds-stress's report: a second of one side's traffic (or the run's average or median).
 *
 * @param tasks        tasks running
 * @param txPerSec     messages sent per second
 * @param rxPerSec     messages received per second
 * @param kibInPerSec  payload KiB (1024 bytes) received per second (rds-stress's mbi)
 * @param kibOutPerSec payload KiB sent per second (mbo)
 * @param rttMeanUs    mean round trip of the requests answered in the interval, microseconds; NaN for none
 * @param rttP99Us     99th percentile of those round trips, microseconds; NaN for none
 */
public record StressLine(int tasks, double txPerSec, double rxPerSec, double kibInPerSec, double kibOutPerSec,
                         double rttMeanUs, double rttP99Us) {

    /** tx+rx K/s: KiB per second both ways. */
    public double kibPerSec() { return kibInPerSec + kibOutPerSec; }

    /** The column heads, aligned with {@link #format()}. */
    public static final String HEADER = String.format(Locale.ROOT, "%5s %9s %9s %11s %11s %11s %10s %10s",
            "tsks", "tx/s", "rx/s", "tx+rx K/s", "mbi K/s", "mbo K/s", "rtt us", "p99 us");

    /** The line, under {@link #HEADER}; a dash for an rtt that was not measured. */
    public String format() {
        return String.format(Locale.ROOT, "%5d %9.0f %9.0f %11.2f %11.2f %11.2f %10s %10s", tasks, txPerSec, rxPerSec,
                kibPerSec(), kibInPerSec, kibOutPerSec, us(rttMeanUs), us(rttP99Us));
    }

    static String us(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
