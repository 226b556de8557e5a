package io.jnet.socket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Stream views of a {@link ByteStreamSocket}, blocking whatever the socket's mode (a non-blocking socket is polled). */
public final class SocketStreams {
    private SocketStreams() {}

    /** The socket as an {@link InputStream}: reads until at least one byte or end of stream; close closes the socket. */
    public static InputStream input(ByteStreamSocket s) { return new In(s); }

    /** The socket as an {@link OutputStream}: writes everything; close closes the socket. */
    public static OutputStream output(ByteStreamSocket s) { return new Out(s); }

    private static final class In extends InputStream {
        private final ByteStreamSocket s;
        private final byte[] one = new byte[1];

        In(ByteStreamSocket s) { this.s = s; }

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
                if (n == 0) Thread.onSpinWait(); // a non-blocking socket with nothing there
            } while (n == 0);
            return n;
        }

        @Override
        public int available() { return s.available(); }

        @Override
        public void close() { s.close(); }
    }

    private static final class Out extends OutputStream {
        private final ByteStreamSocket s;

        Out(ByteStreamSocket s) { this.s = s; }

        @Override
        public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = s.write(b, off, len);
                off += n;
                len -= n;
                if (n == 0) Thread.onSpinWait(); // a non-blocking socket with no room
            }
        }

        @Override
        public void close() { s.close(); }
    }
}
