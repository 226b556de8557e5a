package io.jnet.stack;

import io.jnet.link.NetDevice;
import io.jnet.wire.Ipv4;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A device attached to a namespace, with its index and IPv4 addresses (Linux's net_device + in_device). */
public final class Interface {
    /** One IPv4 address with its prefix length. */
    public record Address(int address, int prefixLength) {
        public int mask() { return Ipv4.prefixMask(prefixLength); }
        public int network() { return address & mask(); }
        public int broadcast() { return prefixLength >= 31 ? -1 : address | ~mask(); }
        public boolean contains(int a) { return (a & mask()) == network(); }

        @Override
        public String toString() { return Ipv4.addressToString(address) + "/" + prefixLength; }
    }

    private final int index;
    private volatile NetDevice device;
    private final List<Address> addresses = new CopyOnWriteArrayList<>();

    private final Sysctls.DeviceConf conf;

    Interface(int index, NetDevice device, Sysctls.DeviceConf conf) {
        this.index = index;
        this.device = device;
        this.conf = conf;
    }

    /** The device's {@code net.ipv4.conf.<dev>} sysctls (forwarding, rp_filter). */
    public Sysctls.DeviceConf conf() { return conf; }

    public int index() { return index; }
    public NetDevice device() { return device; }
    public String name() { return device.name(); }
    public List<Address> addresses() { return addresses; }

    void replaceDevice(NetDevice d) { device = d; }

    void addAddress(Address a) { addresses.add(a); }

    void removeAddress(Address a) { addresses.remove(a); }

    /** The first address, used as the source of packets sent out this interface; 0 if none. */
    public int primaryAddress() { return addresses.isEmpty() ? 0 : addresses.get(0).address(); }

    /** True when {@code a} is one of this interface's addresses. */
    public boolean hasAddress(int a) {
        for (Address x : addresses) if (x.address() == a) return true;
        return false;
    }

    /** True when {@code a} is the subnet broadcast of one of this interface's addresses. */
    public boolean isBroadcast(int a) {
        if (a == -1) return true;
        for (Address x : addresses) if (x.broadcast() == a && x.prefixLength() < 31) return true;
        return false;
    }

    @Override
    public String toString() { return index + ": " + device.name() + " " + addresses; }
}
