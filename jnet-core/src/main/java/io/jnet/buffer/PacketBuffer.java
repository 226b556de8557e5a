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
 * called when its data is freed; pools and per-socket caches plug in there.
 *
 * <p><b>Shared data</b> (Linux skb_clone): {@link #cloneShared()} makes a second buffer over the same array, with
 * its own bounds, offsets and metadata, and a reference count on the data (Linux's dataref) that the original
 * keeps. The data is freed, and the original's release hook runs, when the original and every clone are
 * released, in any order and on any threads. Shared bytes are read-only: from the original's data start on,
 * nobody writes them while {@link #dataShared()} holds ({@link #put}, {@link #tryCoalesce} and {@link #linearize}
 * refuse or copy first; a layer that alters payload bytes takes {@link #unshare()} first, Linux's skb_cow). The
 * bytes in front of the data at the time of the clone are the clone's headroom: a clone pushes its headers
 * there (TCP, IP, Ethernet of a transmitted segment), so the original must not use its own headroom while a
 * clone is alive, and only one clone at a time may push headers; TCP clones a write-queue segment only when it
 * is not shared already, and copies otherwise. Each buffer carries one spare clone header (Linux's fast clone,
 * skbuff_fclone_cache), so cloning a buffer that is not shared allocates nothing once warm.
 *
 * <p>Not thread-safe: a buffer belongs to one thread at a time, handed over through queues; the data's
 * reference count is atomic, so an original and its clone may be released on different threads.
 */
public final class PacketBuffer {
    private static final java.lang.invoke.VarHandle DATA_REFS;
    private static final java.lang.invoke.VarHandle CLONE_REFS;

    static {
        try {
            var l = java.lang.invoke.MethodHandles.lookup();
            DATA_REFS = l.findVarHandle(PacketBuffer.class, "dataRefs", int.class);
            CLONE_REFS = l.findVarHandle(PacketBuffer.class, "cloneRefs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    /** The buffer whose data this clone shares, or null for an original (which owns its array). */
    private PacketBuffer origin;
    /**
     * On an original: the original plus its live clones that hold the data (Linux's skb_shared_info dataref);
     * 1 while nothing shares it. Updated atomically through {@link #DATA_REFS}.
     */
    @SuppressWarnings("unused") // through DATA_REFS
    private volatile int dataRefs = 1;
    /**
     * On an original: its live clones ({@link #cloneShared()}), which may have pushed headers into its headroom
     * (Linux's skb_cloned; the references taken through {@link #shareArray()} are not clones, they read
     * payload bytes only). Updated atomically through {@link #CLONE_REFS}.
     */
    @SuppressWarnings("unused") // through CLONE_REFS
    private volatile int cloneRefs;
    /** The spare clone header of an original (Linux's fclone companion), reused while no clone is alive. */
    private PacketBuffer fclone;
    /** On an original: its array as a {@link PayloadRegion}, made once and reused ({@link #shareArray()}). */
    private PayloadRegion arrayRegion;
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
    /** TCP: the ISN for the connection a received SYN opens after it ended TIME-WAIT (Linux tcp_tw_isn), 0 = none. */
    public int twIsn;
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
        if (origin != null) throw new IllegalStateException("reset of a clone");
        if ((int) DATA_REFS.getAcquire(this) > 1 || (int) CLONE_REFS.getAcquire(this) != 0) {
            throw new IllegalStateException("reset of data a clone shares");
        }
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
        DATA_REFS.setRelease(this, 1);
        seq = endSeq = flags = twIsn = 0;
        when = 0;
        txDelivered = txDeliveredNs = txFirstTxNs = 0;
        next = null;
        treeLeft = treeRight = treeParent = null;
        treePriority = 0;
        return this;
    }

    /**
     * The array the data lies in. With {@code -Djnet.pool.debug}, a call on a released buffer throws
     * {@link IllegalStateException} (use after release).
     */
    /**
     * Makes a buffer that is no longer in use new again for its owner's next use (a per-socket cache): as
     * {@link #reset(int)}, charged {@code headroom + size} bytes.
     *
     * @throws IllegalArgumentException when the array is smaller than {@code headroom + size}
     * @throws IllegalStateException for a clone, or data that is still shared
     */
    public PacketBuffer recycle(int headroom, int size) {
        if (headroom < 0 || size < 0 || headroom + size > array.length) {
            throw new IllegalArgumentException("recycle " + headroom + " + " + size + " in " + array.length);
        }
        reset(headroom);
        truesize = headroom + size;
        return this;
    }

    public byte[] array() {
        if (PacketPool.DEBUG && released) throw new IllegalStateException("use after release: " + this, debugReleasedAt);
        return array;
    }
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
     * @throws IllegalStateException when there is not that much tailroom, the data goes on by reference, or the
     *     data is shared with a clone ({@link #dataShared()})
     */
    public int put(int n) {
        if (region != null) throw new IllegalStateException("put behind data carried by reference");
        if (dataShared()) throw new IllegalStateException("put into data shared with a clone");
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
     * @return true when the data was appended, false when it does not fit or this buffer's data is shared with a
     *     clone (nothing changed)
     */
    public boolean tryCoalesce(PacketBuffer from) {
        int len = from.length();
        if (region != null || len > tailroom() || dataShared()) return false;
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

    /**
     * The data byte at offset {@code i}, 0 to 255, read through the region for data carried by reference (where a
     * one-byte array is allocated: for rare reads, such as TCP's urgent byte).
     *
     * @throws IndexOutOfBoundsException when {@code i} is not within the data
     */
    public int byteAt(int i) {
        java.util.Objects.checkIndex(i, length());
        int head = dataEnd - dataStart;
        if (i < head) return array[dataStart + i] & 0xFF;
        byte[] one = new byte[1];
        region.read(regionOffset + (i - head), one, 0, 1);
        return one[0] & 0xFF;
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
     * have the tailroom for it; others get a larger array (allocated here). A clone whose data is shared gets a
     * private array first ({@link #unshare()}'s copy). No-op for a linear buffer.
     *
     * @throws IllegalStateException for an original whose data a clone shares (its array cannot change under the clone)
     */
    public void linearize() {
        if (region == null) return;
        if (dataShared()) detach(regionLength);
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
     * Releases the buffer: drops its reference on a {@link PayloadRegion}, if any, and its reference on the data;
     * the last reference on the data (the original's or a clone's, whichever comes last) runs the original's
     * release hook, if any, once. Further releases of the same buffer are no-ops (reported with
     * {@code -Djnet.pool.debug}).
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
        PacketBuffer o = origin == null ? this : origin;
        if (o != this) CLONE_REFS.getAndAdd(o, -1);
        dropDataRef(o);
    }

    /**
     * Drops one reference on {@code o}'s data; the last one runs its release hook. Linux skb_release_data: the
     * last holder needs no atomic, since nobody else can take a reference then.
     */
    private static void dropDataRef(PacketBuffer o) {
        if ((int) DATA_REFS.getAcquire(o) != 1 && (int) DATA_REFS.getAndAdd(o, -1) != 1) return;
        DATA_REFS.setOpaque(o, 0);
        ReleaseHook h = o.releaseHook;
        if (h != null) h.released(o);
    }

    /**
     * The array of this buffer's data as a {@link PayloadRegion}, with one reference on it for the caller (which
     * {@link PayloadRegion#release()} drops) that holds the data as a reference does: another buffer can carry a
     * run of these bytes by reference ({@link #attachPayload}, offsets are indexes into {@link #array()}) without
     * a copy, as Linux's skb_split moves page fragments. The region is made once per array and reused, so this
     * allocates nothing once warm. The bytes are then shared ({@link #dataShared()}): read-only.
     */
    public PayloadRegion shareArray() {
        if (released) throw new IllegalStateException("share of a released buffer");
        PacketBuffer o = origin == null ? this : origin;
        PayloadRegion r = o.arrayRegion;
        if (r == null || !r.wraps(o.array)) {
            r = PayloadRegion.ofArray(o.array, () -> dropDataRef(o));
            o.arrayRegion = r;
        } else if (!r.retainOrRevive()) {
            return r; // retained: an earlier share is alive and holds the data reference already
        }
        DATA_REFS.getAndAdd(o, 1); // the region's first reference holds one on the data
        return r;
    }

    /**
     * True while this buffer's data is held by another buffer too (an original with a live clone or a run of its
     * bytes carried by reference elsewhere, or a clone whose original or sibling is alive): its bytes are then
     * read-only.
     */
    public boolean dataShared() {
        PacketBuffer o = origin == null ? this : origin;
        return (int) DATA_REFS.getAcquire(o) > 1;
    }

    /**
     * True while a clone of this buffer's data ({@link #cloneShared()}) is alive, which may have pushed headers into
     * the headroom (Linux skb_cloned): a new clone that pushes headers must wait, or the data be copied.
     */
    public boolean cloned() {
        PacketBuffer o = origin == null ? this : origin;
        return (int) CLONE_REFS.getAcquire(o) > 0;
    }

    /** True for a buffer made by {@link #cloneShared()}. */
    public boolean isClone() { return origin != null; }

    /**
     * A clone (Linux skb_clone): a new buffer over the same data, with this buffer's bounds, header offsets,
     * checksum state, GSO size and control block, no owner, no queue links; the data carried by reference, if
     * any, is shared too (one more reference on its region). Allocates nothing when no clone of the data is alive
     * and this buffer's spare clone header was made before (once warm); otherwise allocates a header.
     *
     * @throws IllegalStateException on a released buffer
     */
    public PacketBuffer cloneShared() {
        if (released) throw new IllegalStateException("clone of a released buffer");
        PacketBuffer o = origin == null ? this : origin;
        PacketBuffer c;
        if ((int) CLONE_REFS.getAcquire(o) == 0) { // no clone alive: the spare header is free
            c = o.fclone;
            if (c == null) {
                c = new PacketBuffer(array, 0);
                o.fclone = c;
            }
        } else {
            c = new PacketBuffer(array, 0);
        }
        CLONE_REFS.getAndAdd(o, 1);
        DATA_REFS.getAndAdd(o, 1);
        c.origin = o;
        c.array = array;
        c.dataStart = dataStart;
        c.dataEnd = dataEnd;
        c.networkOffset = networkOffset;
        c.transportOffset = transportOffset;
        c.owner = null;
        c.truesize = truesize;
        c.releaseHook = null;
        c.released = false;
        c.inputDevice = inputDevice;
        c.socket = null;
        c.friend = friend;
        c.checksumUnnecessary = checksumUnnecessary;
        c.checksumPartial = checksumPartial;
        c.gsoSize = gsoSize;
        c.region = null;
        c.regionOffset = c.regionLength = 0;
        if (region != null) {
            region.retain();
            c.region = region;
            c.regionOffset = regionOffset;
            c.regionLength = regionLength;
        }
        c.seq = seq;
        c.endSeq = endSeq;
        c.flags = flags;
        c.when = when;
        c.txDelivered = txDelivered;
        c.txDeliveredNs = txDeliveredNs;
        c.txFirstTxNs = txFirstTxNs;
        c.next = null;
        c.treeLeft = c.treeRight = c.treeParent = null;
        c.treePriority = 0;
        return c;
    }

    /**
     * This buffer with data of its own (Linux skb_unshare / skb_cow): itself when nothing shares its data, or else a
     * {@link #copy()} with this buffer's owner, after which this buffer is released. For a layer about to alter
     * bytes of the data.
     */
    public PacketBuffer unshare() {
        if (!dataShared()) return this;
        PacketBuffer b = copy();
        b.owner = owner;
        b.inputDevice = inputDevice;
        b.socket = socket;
        b.friend = friend;
        b.seq = seq;
        b.endSeq = endSeq;
        b.flags = flags;
        b.when = when;
        release();
        return b;
    }

    /**
     * Gives a clone whose data is shared a private copy of its array, {@code extra} bytes longer. It stays a clone
     * of its original and keeps its reference on the data until it is released: its header may be the original's
     * spare one, which must not be handed out again while this buffer lives.
     */
    private void detach(int extra) {
        if (origin == null) throw new IllegalStateException("cannot move the data of an original that a clone shares");
        array = java.util.Arrays.copyOf(array, dataEnd + extra);
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
