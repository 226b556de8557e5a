package io.jnet.buffer;

/**
 * The packet buffer, jnet's analog of Linux's {@code sk_buff}: one contiguous heap array with
 * headroom in front of the data (so lower layers push headers without copying), the data itself
 * and tailroom behind it.
 *
 * <pre>
 *   0 ........ head ........ dataStart ........ dataEnd ........ capacity
 *              |  headroom  |      data         |   tailroom    |
 * </pre>
 *
 * <p>The data may go on beyond the array: a buffer can carry a run of bytes of a {@link PayloadRegion} by
 * reference behind the bytes in its array (Linux: the page fragments of a non-linear skb, as sendfile(2)
 * builds them). {@link #length()} counts both parts, {@link #headLength()} the array's part; headers are
 * always in the array. Whoever needs the data as bytes reads it with {@link #copyData} or makes the buffer
 * linear first ({@link #linearize()}).
 *
 * <p>Offsets are byte indexes into {@link #array()}. Header offsets ({@link #networkOffset()},
 * {@link #transportOffset()}) are absolute array indexes, set by the layer that parses or builds
 * the header, like Linux's {@code skb_network_header}.
 *
 * <p>A buffer has an optional owner (the socket whose memory it is charged to) and a release hook
 * called once when {@link #release()} runs; pools and per-socket caches plug in there.
 *
 * <p>Not thread-safe: a buffer belongs to one thread at a time, handed over through queues.
 */
public final class PacketBuffer {

    /** Headroom reserved by default: Ethernet (14) + IPv4 with options (60) + TCP with options (60), rounded. */
    public static final int DEFAULT_HEADROOM = 160;

    private byte[] array;
    private int dataStart;
    private int dataEnd;
    private int networkOffset = -1;
    private int transportOffset = -1;
    private Object owner;
    private int truesize;
    private ReleaseHook releaseHook;
    private boolean released;
    /** Device the buffer arrived on, or null for locally generated packets. */
    private Object inputDevice;
    /** Early-demux result or other per-packet socket reference (Linux skb->sk on input). */
    private Object socket;
    /**
     * In-process metadata for TCP friends (the Linux friends patch's {@code skb->friend}): on a loopback
     * SYN-ACK and final ACK, the socket offering or accepting a pairing. Never written to the wire; a
     * device that copies a frame does not carry it.
     */
    private Object friend;
    /** Set when the checksum was already verified or need not be (loopback: CHECKSUM_UNNECESSARY). */
    private boolean checksumUnnecessary;
    /**
     * Set when the transport checksum was left out because the frame cannot leave the process (Linux's
     * CHECKSUM_PARTIAL on loopback); whoever shows the frame outside (a pcap sniffer) completes it.
     */
    private boolean checksumPartial;
    /**
     * Payload bytes per segment of a TCP segment larger than one (Linux skb_shinfo(skb)->gso_size): TCP sets
     * it when it hands a device that takes large segments whole ({@link io.jnet.link.NetDevice#gsoMaxSize()})
     * several MSS at once; a router that forwards such a segment to a device that does not take it whole cuts
     * it at this size. 0 for an ordinary packet.
     */
    private int gsoSize;
    /** Payload carried by reference behind the array's data, or null; {@link #regionLength} bytes from {@link #regionOffset}. */
    private PayloadRegion region;
    private long regionOffset;
    private int regionLength;

    /**
     * Control block for the layer holding the buffer (Linux's {@code skb->cb}): TCP stores the segment's
     * first sequence number, the one after its last (SYN and FIN count), its flags and when it was sent.
     */
    public int seq;
    public int endSeq;
    public int flags;
    /** Clock time in ns (TCP: when the segment was last sent; 0 = never). */
    public long when;
    /**
     * TCP delivery-rate state recorded when the segment was last sent (Linux's {@code tcp_skb_cb.tx}):
     * bytes the connection had delivered by then, when that count last grew (ns, 0 = not recorded) and
     * when the flight this segment belongs to started (ns).
     */
    public long txDelivered;
    public long txDeliveredNs;
    public long txFirstTxNs;
    /** Next buffer in an intrusive singly linked queue (backlogs, receive and send queues). */
    public PacketBuffer next;
    /**
     * Links of the search tree the buffer sits in, null when it is in none (TCP's out-of-order queue keeps
     * its segments in a tree, as Linux does through {@code skb->rbnode}); the tree's owner manages them.
     */
    public PacketBuffer treeLeft, treeRight, treeParent;
    /** Balancing key of the buffer in that tree (a treap's heap priority). */
    public int treePriority;

    /** Called once when a buffer is released. */
    @FunctionalInterface
    public interface ReleaseHook {
        void released(PacketBuffer buffer);
    }

    private PacketBuffer(byte[] array, int headroom) {
        this.array = array;
        this.dataStart = headroom;
        this.dataEnd = headroom;
        this.truesize = array.length;
    }

    /**
     * Allocates a buffer.
     *
     * @param headroom bytes reserved in front for headers pushed later
     * @param size bytes of data space behind the headroom
     */
    public static PacketBuffer allocate(int headroom, int size) {
        if (headroom < 0 || size < 0) throw new IllegalArgumentException("negative size");
        return new PacketBuffer(new byte[headroom + size], headroom);
    }

    /** Wraps a copy of {@code length} bytes at {@code offset} of {@code src} as the data, with headroom for re-encapsulation. */
    public static PacketBuffer copyOf(byte[] src, int offset, int length, int headroom) {
        PacketBuffer b = allocate(headroom, length);
        System.arraycopy(src, offset, b.array, headroom, length);
        b.dataEnd = headroom + length;
        return b;
    }

    /** Resets an existing buffer for reuse (pools/caches): empties data, clears metadata. */
    public PacketBuffer reset(int headroom) {
        if (headroom > array.length) throw new IllegalArgumentException("headroom > capacity");
        dataStart = dataEnd = headroom;
        networkOffset = transportOffset = -1;
        owner = null;
        inputDevice = null;
        socket = null;
        friend = null;
        checksumUnnecessary = false;
        checksumPartial = false;
        gsoSize = 0;
        region = null; // a released buffer has dropped its reference already
        regionOffset = regionLength = 0;
        released = false;
        seq = endSeq = flags = 0;
        when = 0;
        txDelivered = txDeliveredNs = txFirstTxNs = 0;
        next = null;
        treeLeft = treeRight = treeParent = null;
        treePriority = 0;
        return this;
    }

    public byte[] array() { return array; }
    public int capacity() { return array.length; }
    /** Offset of the first data byte in {@link #array()}. */
    public int dataStart() { return dataStart; }
    /** Offset one past the last data byte. */
    public int dataEnd() { return dataEnd; }
    /** Data length in bytes, the part carried by reference included (Linux skb->len). */
    public int length() { return dataEnd - dataStart + regionLength; }
    /** Bytes of data in {@link #array()} (Linux skb_headlen). */
    public int headLength() { return dataEnd - dataStart; }
    public int headroom() { return dataStart; }
    public int tailroom() { return array.length - dataEnd; }

    /** Prepends {@code n} bytes (Linux skb_push) and returns the new data start. */
    public int push(int n) {
        if (n < 0 || n > dataStart) throw new IllegalStateException("headroom " + dataStart + " < push " + n);
        dataStart -= n;
        return dataStart;
    }

    /**
     * Removes {@code n} bytes from the front (Linux skb_pull, or __pskb_pull past the array's data) and returns
     * the new data start.
     */
    public int pull(int n) {
        if (n < 0 || n > length()) throw new IllegalStateException("pull " + n + " > length " + length());
        int head = dataEnd - dataStart;
        if (n <= head) {
            dataStart += n;
        } else {
            dataStart = dataEnd;
            regionOffset += n - head;
            regionLength -= n - head;
            if (regionLength == 0) dropRegion();
        }
        return dataStart;
    }

    /**
     * Appends {@code n} bytes at the tail (Linux skb_put) and returns the offset where they start.
     *
     * @throws IllegalStateException when there is not that much tailroom, or the data goes on by reference
     */
    public int put(int n) {
        if (region != null) throw new IllegalStateException("put behind data carried by reference");
        if (n < 0 || n > tailroom()) throw new IllegalStateException("tailroom " + tailroom() + " < put " + n);
        int at = dataEnd;
        dataEnd += n;
        return at;
    }

    /** Appends bytes copied from {@code src}. */
    public void put(byte[] src, int off, int len) {
        int at = put(len);
        System.arraycopy(src, off, array, at, len);
    }

    /**
     * Appends a copy of {@code from}'s data behind this buffer's data when it fits in the tailroom (Linux
     * skb_try_coalesce, for a linear buffer). The charge ({@link #truesize()}) stays as it is: the room was
     * allocated, and charged, with this buffer. {@code from} is left untouched; releasing it is the caller's.
     *
     * @return true when the data was appended, false when it does not fit (nothing changed)
     */
    public boolean tryCoalesce(PacketBuffer from) {
        int len = from.length();
        if (region != null || len > tailroom()) return false;
        from.copyData(0, array, dataEnd, len);
        dataEnd += len;
        return true;
    }

    /** Cuts the data to {@code len} bytes (Linux skb_trim / pskb_trim). */
    public void trim(int len) {
        if (len < 0 || len > length()) throw new IllegalArgumentException("trim " + len + " of " + length());
        int head = dataEnd - dataStart;
        if (len >= head) {
            regionLength = len - head;
            if (regionLength == 0) dropRegion();
        } else {
            dataEnd = dataStart + len;
            dropRegion();
        }
    }

    /**
     * Makes {@code length} bytes of {@code r} from {@code offset} the data behind the array's data, taking a
     * reference on {@code r} that {@link #release()} drops. With {@code charge}, the bytes are added to
     * {@link #truesize()} (the buffer was not allocated with room for them); the buffer must not be in a
     * queue then, whose byte count would go wrong.
     *
     * @throws IllegalStateException when the buffer already carries data by reference
     * @throws IndexOutOfBoundsException when the run is not within {@code r}
     */
    public void attachPayload(PayloadRegion r, long offset, int length, boolean charge) {
        if (region != null) throw new IllegalStateException("already carries data by reference");
        java.util.Objects.checkFromIndexSize(offset, length, (long) r.length());
        if (length == 0) return;
        r.retain();
        region = r;
        regionOffset = offset;
        regionLength = length;
        if (charge) truesize += length;
    }

    /**
     * Lengthens the data carried by reference by {@code n} bytes of the same region, charged to
     * {@link #truesize()}; {@link PacketQueue#extendTail} calls it for a queued buffer.
     */
    void extendPayload(int n) {
        if (region == null || n < 0) throw new IllegalStateException("no data by reference to extend");
        java.util.Objects.checkFromIndexSize(regionOffset, (long) regionLength + n, (long) region.length());
        regionLength += n;
        truesize += n;
    }

    /** The region the data goes on in, or null when all data is in {@link #array()}. */
    public PayloadRegion payloadRegion() { return region; }
    /** Offset in {@link #payloadRegion()} of the first byte carried by reference. */
    public long payloadOffset() { return regionOffset; }
    /** Bytes carried by reference (Linux skb->data_len). */
    public int payloadLength() { return regionLength; }

    /**
     * Copies {@code len} data bytes from data offset {@code from} into {@code dst} at {@code dstOff}, reading
     * the part carried by reference through its region (zeros where its file was truncated; see
     * {@link PayloadRegion}).
     */
    public void copyData(int from, byte[] dst, int dstOff, int len) {
        java.util.Objects.checkFromIndexSize(from, len, length());
        int head = dataEnd - dataStart;
        if (from < head) {
            int n = Math.min(len, head - from);
            System.arraycopy(array, dataStart + from, dst, dstOff, n);
            from += n;
            dstOff += n;
            len -= n;
        }
        if (len > 0) region.read(regionOffset + (from - head), dst, dstOff, len);
    }

    /** As {@link #copyData(int, byte[], int, int)}, into {@code dst} at its position, which moves on by {@code len}. */
    public void copyData(int from, java.nio.ByteBuffer dst, int len) {
        java.util.Objects.checkFromIndexSize(from, len, length());
        int head = dataEnd - dataStart;
        if (from < head) {
            int n = Math.min(len, head - from);
            dst.put(array, dataStart + from, n);
            from += n;
            len -= n;
        }
        if (len > 0) region.read(regionOffset + (from - head), dst, len);
    }

    /**
     * Copies the data carried by reference into the array behind the rest and drops the reference (Linux
     * skb_linearize), for code that reads or alters the data in place. Buffers that TCP builds with such data
     * have the tailroom for it; others get a larger array (allocated here). No-op for a linear buffer.
     */
    public void linearize() {
        if (region == null) return;
        int n = regionLength;
        if (array.length - dataEnd < n) array = java.util.Arrays.copyOf(array, dataEnd + n);
        region.read(regionOffset, array, dataEnd, n);
        dataEnd += n;
        dropRegion();
    }

    private void dropRegion() {
        PayloadRegion r = region;
        region = null;
        regionOffset = 0;
        regionLength = 0;
        if (r != null) r.release();
    }

    /** Sets data bounds directly (absolute offsets in the array; a linear buffer only). */
    public void setData(int start, int end) {
        if (region != null) throw new IllegalStateException("setData on a buffer with data by reference");
        if (start < 0 || end < start || end > array.length) throw new IllegalArgumentException("bad bounds");
        dataStart = start;
        dataEnd = end;
    }

    public int networkOffset() { return networkOffset; }
    public void setNetworkOffset(int off) { networkOffset = off; }
    public int transportOffset() { return transportOffset; }
    public void setTransportOffset(int off) { transportOffset = off; }

    public Object owner() { return owner; }
    public void setOwner(Object owner) { this.owner = owner; }
    /** Memory charged for this buffer in bytes (what was asked for, headroom included; Linux's skb->truesize). */
    public int truesize() { return truesize; }

    /** Sets the charge in bytes (pools charge what was asked for, not the size class). */
    void setTruesize(int bytes) { truesize = bytes; }

    public Object inputDevice() { return inputDevice; }

    /** TCP friends metadata (see the field), or null. */
    public Object friend() { return friend; }
    public void setFriend(Object friend) { this.friend = friend; }
    public void setInputDevice(Object dev) { inputDevice = dev; }
    public Object socket() { return socket; }
    public void setSocket(Object sk) { socket = sk; }
    public boolean checksumUnnecessary() { return checksumUnnecessary; }
    public void setChecksumUnnecessary(boolean v) { checksumUnnecessary = v; }
    public boolean checksumPartial() { return checksumPartial; }
    public void setChecksumPartial(boolean v) { checksumPartial = v; }
    /** Payload bytes per segment of a large TCP segment (Linux gso_size), 0 for an ordinary packet. */
    public int gsoSize() { return gsoSize; }
    /** Sets the payload bytes per segment of a large TCP segment (0: ordinary packet). */
    public void setGsoSize(int bytes) { gsoSize = bytes; }

    public void setReleaseHook(ReleaseHook hook) { this.releaseHook = hook; }

    /** Where a pooled buffer was last released (pool debugging only). */
    Throwable debugReleasedAt;
    /** Set while the buffer is free in a {@link PacketPool} (the pool sets and clears it), to catch a second release. */
    boolean pooled;

    /**
     * Releases the buffer: drops its reference on a {@link PayloadRegion}, if any, and runs the release hook
     * (if any) once. Further releases are no-ops.
     */
    public void release() {
        if (released) {
            if (PacketPool.DEBUG && debugReleasedAt != null) {
                new Throwable("second release; first:", debugReleasedAt).printStackTrace();
            }
            return;
        }
        released = true;
        dropRegion();
        ReleaseHook h = releaseHook;
        if (h != null) h.released(this);
    }

    public boolean isReleased() { return released; }

    /** A deep, linear copy of data and metadata (used by sniffers and duplication). */
    public PacketBuffer copy() {
        PacketBuffer b = allocate(dataStart, length());
        copyData(0, b.array, dataStart, length());
        b.dataEnd = dataStart + length();
        b.networkOffset = networkOffset < 0 ? -1 : networkOffset;
        b.transportOffset = transportOffset < 0 ? -1 : transportOffset;
        b.checksumUnnecessary = checksumUnnecessary;
        b.checksumPartial = checksumPartial;
        b.gsoSize = gsoSize;
        return b;
    }

    /** Copies the data out into a new array. */
    public byte[] toBytes() {
        byte[] out = new byte[length()];
        copyData(0, out, 0, out.length);
        return out;
    }

    @Override
    public String toString() {
        return "PacketBuffer[len=" + length() + (region == null ? "" : ", by reference " + regionLength)
                + ", headroom=" + dataStart + ", cap=" + array.length + "]";
    }
}
