// Package netfault applies network faults inside one pod's network namespace: a Partition (its
// packets to and from given peers dropped by iptables) and a Delay (the round trip of its TCP
// connections with those peers lengthened, by the kernel's netem qdisc where the kernel has it and
// otherwise by a transparent Toxiproxy proxy in the namespace that iptables redirects those
// connections through). It is the fault injector's mechanism (cmd/fault-injector) and knows
// nothing of Kubernetes: a fault is a process ID whose network namespace it enters, and peers.
package netfault
