package netfault

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func joined(cmds [][]string) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, strings.Join(c, " "))
	}
	return out
}

func TestRules(t *testing.T) {
	peers := []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.96.0.9")}
	node := netip.MustParseAddr("192.168.1.5")
	for _, tc := range []struct {
		name       string
		cmds       [][]string
		want, none []string
		last       string
	}{
		{"partition drops each peer both ways", PartitionRules(Fault{Action: Partition, Peers: peers}),
			[]string{"-A TPCC-FAULT-IN -s 10.0.0.2 -j DROP", "-A TPCC-FAULT-OUT -d 10.96.0.9 -j DROP"},
			[]string{"-j RETURN"}, "iptables -w -t filter -I OUTPUT 1 -j TPCC-FAULT-OUT"},
		{"cutting the others keeps loopback and the node", PartitionRules(Fault{Action: Partition, Peers: peers, CutOthers: true, Node: node}),
			[]string{"-A TPCC-FAULT-IN -i lo -j RETURN", "-A TPCC-FAULT-IN -s 192.168.1.5 -j RETURN", "-A TPCC-FAULT-OUT -j DROP"},
			[]string{"-s 10.0.0.2"}, "iptables -w -t filter -I OUTPUT 1 -j TPCC-FAULT-OUT"},
		{"the proxy takes each peer's new connections, both ways, but its own", ProxyRules(Fault{Action: Delay, Peers: peers, Delay: time.Millisecond}),
			[]string{"-t nat -A TPCC-FAULT-OUT -p tcp -d 10.96.0.9 -m mark ! --mark 0x7c0 -j REDIRECT --to-ports 15400",
				"-t nat -A TPCC-FAULT-PRE -p tcp -s 10.0.0.2 -j REDIRECT --to-ports 15401",
				"-t filter -A TPCC-FAULT-OUT -p tcp -d 10.0.0.2 -m mark ! --mark 0x7c0 -m conntrack ! --ctstate DNAT -j REJECT --reject-with tcp-reset",
				"-t filter -A TPCC-FAULT-IN -p tcp -s 10.96.0.9 -m conntrack --ctdir ORIGINAL ! --ctstate DNAT -j REJECT --reject-with tcp-reset"},
			nil, "iptables -w -t nat -I PREROUTING 1 -j TPCC-FAULT-PRE"},
		{"netem holds only the peers' packets", NetemRules(Fault{Action: Delay, Peers: peers, Delay: 20 * time.Millisecond, Jitter: 1500 * time.Microsecond}, "eth0"),
			[]string{"netem delay 20ms 1500us", "u32 match ip dst 10.96.0.9/32 flowid 1:3"},
			nil, "tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip dst 10.96.0.9/32 flowid 1:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := strings.Join(joined(tc.cmds), "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("missing %q in\n%s", w, all)
				}
			}
			for _, n := range tc.none {
				if strings.Contains(all, n) {
					t.Errorf("unexpected %q in\n%s", n, all)
				}
			}
			if got := joined(tc.cmds)[len(tc.cmds)-1]; got != tc.last {
				t.Errorf("last command %q, want %q (the jumps go in once the chains are complete)", got, tc.last)
			}
		})
	}
}

func TestHealRulesRemoveEveryJumpBeforeItsChain(t *testing.T) {
	cmds := joined(HealRules())
	seen := map[string]int{}
	for i, c := range cmds {
		seen[c] = i
	}
	for _, j := range jumps {
		del := "iptables -w -t " + j.table + " -D " + j.builtin + " -j " + j.chain
		x := "iptables -w -t " + j.table + " -X " + j.chain
		di, ok1 := seen[del]
		xi, ok2 := seen[x]
		if !ok1 || !ok2 || di > xi {
			t.Errorf("%s %s: want the jump removed before the chain, got %v", j.table, j.chain, cmds)
		}
	}
}

func TestValidate(t *testing.T) {
	peer := []netip.Addr{netip.MustParseAddr("10.0.0.2")}
	for _, tc := range []struct {
		name string
		f    Fault
		want string
	}{
		{"good delay", Fault{PID: 9, Action: Delay, Peers: peer, Delay: time.Millisecond}, ""},
		{"good partition", Fault{PID: 9, Action: Partition, Peers: peer}, ""},
		{"no pid", Fault{Action: Partition, Peers: peer}, "pid 0"},
		{"no peers", Fault{PID: 9, Action: Partition}, "peers: none"},
		{"ipv6 peer", Fault{PID: 9, Action: Partition, Peers: []netip.Addr{netip.MustParseAddr("fd00::1")}}, "not an IPv4"},
		{"sub-millisecond delay", Fault{PID: 9, Action: Delay, Peers: peer, Delay: time.Microsecond}, "delay 1µs"},
		{"jitter over delay", Fault{PID: 9, Action: Delay, Peers: peer, Delay: time.Millisecond, Jitter: 2 * time.Millisecond}, "jitter 2ms"},
		{"cut without node", Fault{PID: 9, Action: Partition, Peers: peer, CutOthers: true}, "node:"},
		{"unknown action", Fault{PID: 9, Action: "Drop", Peers: peer}, `action "Drop"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
