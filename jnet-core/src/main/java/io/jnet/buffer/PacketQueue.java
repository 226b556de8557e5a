package io.jnet.buffer;

/**
 * An intrusive FIFO of packet buffers linked through {@link PacketBuffer#next} (Linux's
 * {@code sk_buff_head} without its lock): no allocation per enqueue. Not thread-safe.
 */
public final class PacketQueue {
    private PacketBuffer head;
    private PacketBuffer tail;
    private int size;
    private long bytes;

    public void add(PacketBuffer b) {
        b.next = null;
        if (tail == null) head = b; else tail.next = b;
        tail = b;
        size++;
        bytes += b.truesize();
    }

    public void addFirst(PacketBuffer b) {
        b.next = head;
        head = b;
        if (tail == null) tail = b;
        size++;
        bytes += b.truesize();
    }

    /** Inserts {@code b} right after {@code prev}, which must be in this queue. */
    public void insertAfter(PacketBuffer prev, PacketBuffer b) {
        b.next = prev.next;
        prev.next = b;
        if (tail == prev) tail = b;
        size++;
        bytes += b.truesize();
    }

    /** Unlinks {@code b}, whose predecessor is {@code prev} (null when {@code b} is the head). */
    public void removeAfter(PacketBuffer prev, PacketBuffer b) {
        if (prev == null) head = b.next; else prev.next = b.next;
        if (tail == b) tail = prev;
        b.next = null;
        size--;
        bytes -= b.truesize();
    }

    /**
     * Lengthens the tail's data carried by reference by {@code n} more bytes of its region, charged to the
     * tail and to this queue (TCP appending to an unsent segment, as Linux's skb_append_pagefrags).
     *
     * @throws IllegalStateException when the queue is empty or its tail carries no data by reference
     */
    public void extendTail(int n) {
        if (tail == null) throw new IllegalStateException("empty queue");
        tail.extendPayload(n);
        bytes += n;
    }

    /**
     * Raises the charge of the tail by {@code n} bytes, and this queue's byte count with it: bytes were copied
     * into a tail charged by use (Linux tcp_sendmsg's {@code skb->truesize += copy; sk_wmem_queued_add(sk, copy)}).
     *
     * @throws IllegalStateException when the queue is empty
     */
    public void chargeTail(int n) {
        if (tail == null) throw new IllegalStateException("empty queue");
        if (n < 0) throw new IllegalArgumentException("charge " + n);
        tail.setTruesize(tail.truesize() + n);
        bytes += n;
    }

    /**
     * Lowers the charge ({@link PacketBuffer#truesize()}) of {@code b}, a buffer in this queue, by {@code n}
     * bytes, and the queue's byte count with it: the charge went to another buffer that now holds part of its
     * bytes (Linux tcp_fragment moves truesize with the bytes it splits off).
     *
     * @throws IllegalArgumentException when {@code n} is negative or more than the buffer's charge
     */
    public void uncharge(PacketBuffer b, int n) {
        if (n < 0 || n > b.truesize()) throw new IllegalArgumentException("uncharge " + n + " of " + b.truesize());
        b.setTruesize(b.truesize() - n);
        bytes -= n;
    }

    public PacketBuffer peek() { return head; }

    public PacketBuffer peekLast() { return tail; }

    public PacketBuffer poll() {
        PacketBuffer b = head;
        if (b == null) return null;
        head = b.next;
        if (head == null) tail = null;
        b.next = null;
        size--;
        bytes -= b.truesize();
        return b;
    }

    /** Detaches and returns the whole chain (linked through next), leaving the queue empty. */
    public PacketBuffer takeAll() {
        PacketBuffer h = head;
        head = tail = null;
        size = 0;
        bytes = 0;
        return h;
    }

    /**
     * Detaches and returns the buffers after {@code prev} (the whole queue when {@code prev} is null), linked
     * through next; {@code prev} becomes the tail.
     */
    public PacketBuffer takeAfter(PacketBuffer prev) {
        if (prev == null) return takeAll();
        PacketBuffer h = prev.next;
        prev.next = null;
        tail = prev;
        for (PacketBuffer b = h; b != null; b = b.next) {
            size--;
            bytes -= b.truesize();
        }
        return h;
    }

    /** Releases every buffer. */
    public void purge() {
        PacketBuffer b;
        while ((b = poll()) != null) b.release();
    }

    public boolean isEmpty() { return head == null; }
    public int size() { return size; }
    /** Sum of the queued buffers' truesize in bytes. */
    public long bytes() { return bytes; }
}
