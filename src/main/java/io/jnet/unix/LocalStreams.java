package io.jnet.unix;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Stream views of a local socket (blocking semantics whatever the socket's mode), as TCP's. */
final class LocalStreams {
    private LocalStreams() {}

    static final class In extends InputStream {
        private final LocalSocketImpl s;
        private final byte[] one = new byte[1];

        In(LocalSocketImpl s) { this.s = s; }

        @Override
        public int read() throws IOException {
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            int n;
            do {
                n = s.read(b, off, len);
                if (n == 0) Thread.onSpinWait(); // non-blocking socket with nothing there
            } while (n == 0);
            return n;
        }

        @Override
        public int available() { return s.available(); }

        @Override
        public void close() { s.close(); }
    }

    static final class Out extends OutputStream {
        private final LocalSocketImpl s;

        Out(LocalSocketImpl s) { this.s = s; }

        @Override
        public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = s.write(b, off, len);
                off += n;
                len -= n;
                if (n == 0) Thread.onSpinWait();
            }
        }

        @Override
        public void close() { s.close(); }
    }
}
