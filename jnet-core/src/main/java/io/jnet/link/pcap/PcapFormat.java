package io.jnet.link.pcap;

/**
 * Constants of the classic libpcap file format ({@code pcap-savefile(5)}, IETF draft-ietf-opsawg-pcap):
 * a 24-byte file header (magic, version 2.4, thiszone, sigfigs, snaplen, link type) followed by records,
 * each a 16-byte header (seconds, sub-second part, captured length, original length) and the captured
 * bytes. All header fields are in the writer's byte order, told apart by the magic number.
 */
public final class PcapFormat {

    /** Magic of files with microsecond timestamps, as written by tcpdump. */
    public static final int MAGIC_MICROSECONDS = 0xa1b2c3d4;
    /** Magic of files with nanosecond timestamps. */
    public static final int MAGIC_NANOSECONDS = 0xa1b23c4d;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 4;
    /** Snapshot length in bytes written by default (tcpdump's default, MAXIMUM_SNAPLEN in libpcap). */
    public static final int DEFAULT_SNAPLEN = 262144;
    /** LINKTYPE_ETHERNET: records start with an Ethernet II header. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Size of the file header in bytes. */
    public static final int FILE_HEADER_LENGTH = 24;
    /** Size of a record header in bytes. */
    public static final int RECORD_HEADER_LENGTH = 16;

    private PcapFormat() {}
}
