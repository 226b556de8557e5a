package io.jnet.lossy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Reruns one case of the sweep for diagnosis, capturing the link:
 * {@code -Djnet.lossy.case=loss,dup,reorder,write,buf,bytes,seed -Djnet.lossy.pcap=/tmp/case.pcap
 * [-Djnet.lossy.bound=ms]}, e.g. {@code 0.1,0,0,1048576,4096,262144,7153}.
 */
@EnabledIfSystemProperty(named = "jnet.lossy.case", matches = ".+")
class LossyCaseRerun {
    @Test
    void rerun() throws Exception {
        String[] f = System.getProperty("jnet.lossy.case").split(",");
        LossyCase c = new LossyCase(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]),
                Integer.parseInt(f[3]), Integer.parseInt(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
        String pcap = System.getProperty("jnet.lossy.pcap");
        long bound = Long.getLong("jnet.lossy.bound", TransferBound.millis(c));
        TransferResult r = VirtualTransfer.run(c, bound, pcap == null ? null : Path.of(pcap));
        System.out.println(c + ": " + r);
    }
}
