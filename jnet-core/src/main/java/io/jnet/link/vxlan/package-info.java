/**
 * VXLAN (RFC 7348): {@link io.jnet.link.vxlan.VxlanDevice}, an Ethernet device tunnelled in UDP over the
 * host's kernel sockets, with its forwarding database {@link io.jnet.link.vxlan.VxlanFdb}.
 */
package io.jnet.link.vxlan;
