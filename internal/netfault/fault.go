package netfault

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Action is what a fault does.
type Action string

const (
	// Delay lengthens the round trip of the pod's TCP connections with its peers.
	Delay Action = "Delay"
	// Partition drops the pod's packets to and from its peers.
	Partition Action = "Partition"
)

// Mechanisms a fault can be applied with.
const (
	MechanismNetem     = "netem"
	MechanismToxiproxy = "toxiproxy"
	MechanismIptables  = "iptables"
)

// Fault is one network fault on one pod's network namespace.
type Fault struct {
	// PID is a process in the pod's network namespace.
	PID int
	// Action: Delay or Partition.
	Action Action
	// Peers are the IPv4 addresses the fault applies between the pod and.
	Peers []netip.Addr
	// Delay and Jitter (Delay): each round trip gains Delay ± Jitter.
	Delay, Jitter time.Duration
	// CutOthers (Partition): everything but the node (Node) and loopback is cut too.
	CutOthers bool
	// Node is the address of the pod's node, which a Partition with CutOthers leaves reachable
	// (its kubelet probes the pod).
	Node netip.Addr
}

// Validate says what is wrong with a fault before anything is applied.
func (f Fault) Validate() error {
	var errs []error
	if f.PID <= 0 {
		errs = append(errs, fmt.Errorf("pid %d: want a process of the pod", f.PID))
	}
	if len(f.Peers) == 0 {
		errs = append(errs, errors.New("peers: none: the fault would apply to nothing"))
	}
	for _, p := range f.Peers {
		if !p.Is4() {
			errs = append(errs, fmt.Errorf("peers: %s is not an IPv4 address", p))
		}
	}
	switch f.Action {
	case Delay:
		if f.Delay < time.Millisecond {
			errs = append(errs, fmt.Errorf("delay %s: want at least 1ms", f.Delay))
		}
		if f.Jitter < 0 || f.Jitter > f.Delay {
			errs = append(errs, fmt.Errorf("jitter %s: want between 0 and the delay", f.Jitter))
		}
	case Partition:
		if f.CutOthers && !f.Node.Is4() {
			errs = append(errs, errors.New("node: a partition that cuts everything else needs the node's IPv4 address"))
		}
	default:
		errs = append(errs, fmt.Errorf("action %q: want Delay or Partition", f.Action))
	}
	return errors.Join(errs...)
}
