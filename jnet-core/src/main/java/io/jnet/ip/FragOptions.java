package io.jnet.ip;

import java.io.ByteArrayOutputStream;

/**
 * The IPv4 options that go into non-first fragments (RFC 791 section 3.1, "copied flag"; section 3.2,
 * fragmentation procedure): only options whose type has the copied bit ({@code 0x80}) set are repeated;
 * the rest (record route, timestamp, NOP, ...) appear in the first fragment only.
 */
final class FragOptions {
    private FragOptions() {}

    static final int EOL = 0;
    static final int NOP = 1;
    static final int COPIED = 0x80;

    /**
     * Extracts the copied options of the header at {@code off} whose length is {@code headerLength} bytes,
     * padded with EOL (zero) bytes to a multiple of 4.
     *
     * @return the padded options (possibly empty), or null when the option list is malformed (an option
     *         length below 2 or running past the header)
     */
    static byte[] copiedOptions(byte[] b, int off, int headerLength) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(headerLength);
        int i = off + 20;
        int end = off + headerLength;
        while (i < end) {
            int type = b[i] & 0xFF;
            if (type == EOL) break;
            if (type == NOP) {
                i++;
                continue;
            }
            if (i + 1 >= end) return null;
            int len = b[i + 1] & 0xFF;
            if (len < 2 || i + len > end) return null;
            if ((type & COPIED) != 0) out.write(b, i, len);
            i += len;
        }
        while ((out.size() & 3) != 0) out.write(EOL);
        return out.toByteArray();
    }
}
