package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RdsStreamParser's direct reads: a payload filled in place gives the same messages as {@link RdsStreamParser#feed}. */
class RdsStreamParserDirectTest {

    @Test
    void payloadFilledInPlaceGivesTheSameMessage() {
        byte[] payload = new byte[10_000];
        for (int i = 0; i < payload.length; i++) payload[i] = (byte) (i * 7);
        byte[] stream = RdsStreamWriter.encode(new RdsMessage(5, 100, 200, 0, payload));
        RdsStreamParser p = new RdsStreamParser();
        List<RdsMessage> out = new ArrayList<>();
        assertThat(p.directRemaining()).isZero();
        p.feed(stream, 0, 48 + 1000, out::add); // header and 1000 payload bytes through feed
        assertThat(p.directRemaining()).isEqualTo(9000);
        assertThat(p.directOffset()).isEqualTo(1000);
        assertThatThrownBy(() -> p.directFilled(9001, out::add)).isInstanceOf(IllegalArgumentException.class);
        System.arraycopy(stream, 48 + 1000, p.directArray(), p.directOffset(), 4000);
        p.directFilled(4000, out::add);
        assertThat(out).isEmpty();
        System.arraycopy(stream, 48 + 5000, p.directArray(), p.directOffset(), 5000);
        p.directFilled(5000, out::add);
        assertThat(out).hasSize(1);
        assertThat(out.getFirst().payloadCopy()).isEqualTo(payload);
        assertThat(out.getFirst().sequence()).isEqualTo(5);
        assertThat(p.directRemaining()).isZero();
        assertThat(p.partial()).isFalse();
        assertThat(p.bytes()).isEqualTo(stream.length);
    }
}
