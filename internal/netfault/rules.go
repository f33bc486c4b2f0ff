package netfault

import (
	"fmt"
	"strconv"
	"time"
)

// The chains a fault adds to the pod's namespace, jumped to from the built-in ones; healing
// removes the jumps and the chains, whatever else the namespace holds.
const (
	chainIn     = "TPCC-FAULT-IN"  // filter INPUT
	chainOut    = "TPCC-FAULT-OUT" // filter OUTPUT, nat OUTPUT
	chainPre    = "TPCC-FAULT-PRE" // nat PREROUTING
	tableFilter = "filter"
	tableNAT    = "nat"
)

// ProxyMark is the packet mark of the delay proxy's own connections: the redirections and resets
// leave them alone, whichever user the database runs as.
const ProxyMark = 0x7c0

// Ports the delay proxy listens on inside the pod's namespace: connections the pod opens to a
// peer are redirected to OutPort (on loopback), connections a peer opens to the pod to InPort.
const (
	OutPort = 15400
	InPort  = 15401
)

// chainJump is a built-in chain's jump into one of the fault's chains.
type chainJump struct{ table, builtin, chain string }

var jumps = []chainJump{
	{tableFilter, "INPUT", chainIn},
	{tableFilter, "OUTPUT", chainOut},
	{tableNAT, "OUTPUT", chainOut},
	{tableNAT, "PREROUTING", chainPre},
}

// ipt is one iptables invocation: -w waits for the namespace's lock rather than failing.
func ipt(table string, args ...string) []string {
	return append([]string{"iptables", "-w", "-t", table}, args...)
}

// PartitionRules are the iptables commands that cut the pod off from its peers (with CutOthers,
// from everything but loopback and its node).
func PartitionRules(f Fault) [][]string {
	cmds := [][]string{ipt(tableFilter, "-N", chainIn), ipt(tableFilter, "-N", chainOut)}
	if f.CutOthers {
		cmds = append(cmds,
			ipt(tableFilter, "-A", chainIn, "-i", "lo", "-j", "RETURN"),
			ipt(tableFilter, "-A", chainIn, "-s", f.Node.String(), "-j", "RETURN"),
			ipt(tableFilter, "-A", chainIn, "-j", "DROP"),
			ipt(tableFilter, "-A", chainOut, "-o", "lo", "-j", "RETURN"),
			ipt(tableFilter, "-A", chainOut, "-d", f.Node.String(), "-j", "RETURN"),
			ipt(tableFilter, "-A", chainOut, "-j", "DROP"))
	} else {
		for _, p := range f.Peers {
			cmds = append(cmds,
				ipt(tableFilter, "-A", chainIn, "-s", p.String(), "-j", "DROP"),
				ipt(tableFilter, "-A", chainOut, "-d", p.String(), "-j", "DROP"))
		}
	}
	return append(cmds,
		ipt(tableFilter, "-I", "INPUT", "1", "-j", chainIn),
		ipt(tableFilter, "-I", "OUTPUT", "1", "-j", chainOut))
}

// ProxyRules are the iptables commands that pass the pod's TCP connections with its peers through
// the delay proxy: new ones the pod opens are redirected to OutPort, new ones a peer opens to
// InPort; the proxy's own connections carry ProxyMark and are left alone. Connections open before
// are reset (the pod's side and the peer's), so that the database reconnects, through the proxy.
func ProxyRules(f Fault) [][]string {
	mark := "0x" + strconv.FormatInt(ProxyMark, 16)
	cmds := [][]string{
		ipt(tableNAT, "-N", chainOut), ipt(tableNAT, "-N", chainPre),
		ipt(tableFilter, "-N", chainIn), ipt(tableFilter, "-N", chainOut),
	}
	for _, p := range f.Peers {
		peer := p.String()
		cmds = append(cmds,
			ipt(tableNAT, "-A", chainOut, "-p", "tcp", "-d", peer, "-m", "mark", "!", "--mark", mark,
				"-j", "REDIRECT", "--to-ports", strconv.Itoa(OutPort)),
			ipt(tableNAT, "-A", chainPre, "-p", "tcp", "-s", peer, "-j", "REDIRECT", "--to-ports", strconv.Itoa(InPort)),
			// A redirected connection the pod opens leaves for loopback, and the proxy's answers
			// to a peer belong to a redirected (DNAT) connection: what else heads for a peer
			// unmarked is a connection from before.
			ipt(tableFilter, "-A", chainOut, "-p", "tcp", "-d", peer, "-m", "mark", "!", "--mark", mark,
				"-m", "conntrack", "!", "--ctstate", "DNAT", "-j", "REJECT", "--reject-with", "tcp-reset"),
			// A peer's connection from before is the one its opening packet was not redirected.
			ipt(tableFilter, "-A", chainIn, "-p", "tcp", "-s", peer, "-m", "conntrack", "--ctdir", "ORIGINAL",
				"!", "--ctstate", "DNAT", "-j", "REJECT", "--reject-with", "tcp-reset"))
	}
	for _, j := range jumps {
		cmds = append(cmds, ipt(j.table, "-I", j.builtin, "1", "-j", j.chain))
	}
	return cmds
}

// HealRules remove every jump into the fault's chains and the chains themselves. Each may find
// nothing to remove (a partition has no nat chains; healing twice finds nothing): their errors
// are expected and ignored.
func HealRules() [][]string {
	var cmds [][]string
	for _, j := range jumps {
		cmds = append(cmds, ipt(j.table, "-D", j.builtin, "-j", j.chain))
	}
	for _, j := range jumps {
		cmds = append(cmds, ipt(j.table, "-F", j.chain), ipt(j.table, "-X", j.chain))
	}
	return cmds
}

// NetemRules are the tc commands that delay the pod's packets to its peers on its interface dev:
// a prio qdisc whose bands take every packet to band 2, except those a u32 filter sends, by
// destination, to band 3, where netem holds them for delay ± jitter.
func NetemRules(f Fault, dev string) [][]string {
	netem := []string{"tc", "qdisc", "add", "dev", dev, "parent", "1:3", "handle", "30:", "netem", "delay", ms(f.Delay)}
	if f.Jitter > 0 {
		netem = append(netem, ms(f.Jitter))
	}
	cmds := [][]string{
		{"tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "prio", "bands", "3",
			"priomap", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1"},
		netem,
	}
	for _, p := range f.Peers {
		cmds = append(cmds, []string{"tc", "filter", "add", "dev", dev, "protocol", "ip", "parent", "1:", "prio", "1",
			"u32", "match", "ip", "dst", p.String() + "/32", "flowid", "1:3"})
	}
	return cmds
}

// NetemHeal removes the qdiscs NetemRules added.
func NetemHeal(dev string) []string { return []string{"tc", "qdisc", "del", "dev", dev, "root"} }

// ms writes a duration in tc's microsecond-precise milliseconds.
func ms(d time.Duration) string {
	us := d.Microseconds()
	if us%1000 == 0 {
		return fmt.Sprintf("%dms", us/1000)
	}
	return fmt.Sprintf("%dus", us)
}
