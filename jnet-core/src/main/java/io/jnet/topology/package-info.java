/**
 * Set-ups of several namespaces: {@link io.jnet.topology.Topology} joins namespaces with veth pairs in code, and
 * {@link io.jnet.topology.NetworkConfig} describes namespaces, devices, addresses, routes, sysctls, impairments and
 * name-service lines in text shaped like Linux's {@code ip} commands, which {@link io.jnet.topology.NetworkConfig#apply()}
 * builds into a {@link io.jnet.topology.Network}.
 */
package io.jnet.topology;
