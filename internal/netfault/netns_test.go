package netfault

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tests below apply faults for real: two network namespaces joined by a veth pair stand for
// a pod and its peer; the injector enters the pod's through nsenter and changes it with iptables
// (and tc where the kernel has netem), the delay proxy runs in it. They need root, nsenter,
// iptables and ip, as the injector's image has them.

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "proxy" { // the injector's proxy subcommand, run by the tests' Injector
		if err := ProxyMain(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type pair struct {
	pod, peer string // namespace names
	podIP     netip.Addr
	peerIP    netip.Addr
	pid       int // a process in the pod's namespace
}

func newPair(t *testing.T) *pair {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("entering and changing network namespaces needs root")
	}
	for _, tool := range []string{"nsenter", "iptables", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	suffix := fmt.Sprintf("%d", os.Getpid()%100000)
	p := &pair{pod: "tpccf-pod-" + suffix, peer: "tpccf-peer-" + suffix,
		podIP: netip.MustParseAddr("10.231.7.1"), peerIP: netip.MustParseAddr("10.231.7.2")}
	sh := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", p.pod).Run()
		_ = exec.Command("ip", "netns", "del", p.peer).Run()
	})
	sh("ip", "netns", "add", p.pod)
	sh("ip", "netns", "add", p.peer)
	sh("ip", "link", "add", "tpccf"+suffix, "netns", p.pod, "type", "veth", "peer", "name", "tpccg"+suffix, "netns", p.peer)
	sh("ip", "-n", p.pod, "link", "set", "tpccf"+suffix, "name", "eth0")
	sh("ip", "-n", p.peer, "link", "set", "tpccg"+suffix, "name", "eth0")
	sh("ip", "-n", p.pod, "addr", "add", p.podIP.String()+"/24", "dev", "eth0")
	sh("ip", "-n", p.peer, "addr", "add", p.peerIP.String()+"/24", "dev", "eth0")
	for _, ns := range []string{p.pod, p.peer} {
		sh("ip", "-n", ns, "link", "set", "lo", "up")
		sh("ip", "-n", ns, "link", "set", "eth0", "up")
	}
	sh("ip", "-n", p.pod, "route", "add", "default", "via", p.peerIP.String())
	sleep := exec.Command("ip", "netns", "exec", p.pod, "sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	p.pid = sleep.Process.Pid
	return p
}

// in runs f on a thread inside namespace ns: sockets it creates stay there.
func in(t *testing.T, ns string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		target, err := os.Open("/run/netns/" + ns)
		if err != nil {
			t.Error(err)
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			t.Error(err)
			return
		}
		f()
	}()
	<-done
}

// echo serves an echo server in ns on port.
func echo(t *testing.T, ns string, port int) {
	var l net.Listener
	in(t, ns, func() {
		var err error
		if l, err = net.Listen("tcp4", fmt.Sprintf("0.0.0.0:%d", port)); err != nil {
			t.Fatal(err)
		}
	})
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
}

// dial opens a connection from ns to addr.
func dial(t *testing.T, ns, addr string, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	var err error
	in(t, ns, func() { c, err = net.DialTimeout("tcp4", addr, timeout) })
	return c, err
}

// rtt is the median of 9 one-byte round trips on c.
func rtt(t *testing.T, c net.Conn) time.Duration {
	t.Helper()
	var d []time.Duration
	buf := make([]byte, 1)
	for range 9 {
		start := time.Now()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte{'x'}); err != nil {
			t.Fatalf("write: %v", err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatalf("read: %v", err)
		}
		d = append(d, time.Since(start))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func TestDelayLengthensEveryRoundTripWithThePeersAndHeals(t *testing.T) {
	p := newPair(t)
	echo(t, p.peer, 5432) // the peer's server, which the pod connects to
	echo(t, p.pod, 5433)  // the pod's, which the peer connects to
	old, err := dial(t, p.pod, p.peerIP.String()+":5432", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	before := rtt(t, old)

	inj := &Injector{Self: os.Args[0]}
	ctx := context.Background()
	const delay = 20 * time.Millisecond
	a, err := inj.Apply(ctx, "f1", Fault{PID: p.pid, Action: Delay, Peers: []netip.Addr{p.peerIP}, Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mechanism %s %s; round trip before %s", a.Mechanism, a.Note, before)
	if a.Mechanism == MechanismToxiproxy {
		// A connection from before is reset, so the database reconnects through the proxy.
		_ = old.SetDeadline(time.Now().Add(2 * time.Second))
		_, werr := old.Write([]byte{'x'})
		_, rerr := old.Read(make([]byte, 1))
		if werr == nil && rerr == nil {
			t.Error("a connection opened before the delay still works unproxied: it should have been reset")
		}
	}
	out, err := dial(t, p.pod, p.peerIP.String()+":5432", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	inbound, err := dial(t, p.peer, p.podIP.String()+":5433", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer inbound.Close()
	gotOut, gotIn := rtt(t, out), rtt(t, inbound)
	t.Logf("round trip under a %s delay: %s opened by the pod, %s opened by the peer", delay, gotOut, gotIn)
	for what, got := range map[string]time.Duration{"opened by the pod": gotOut, "opened by the peer": gotIn} {
		if got < delay || got > delay+15*time.Millisecond {
			t.Errorf("a connection %s: round trip %s under a %s delay: want %s to %s", what, got, delay, delay, delay+15*time.Millisecond)
		}
	}

	if err := inj.Heal(ctx, "f1", p.pid); err != nil {
		t.Fatal(err)
	}
	if inj.Active("f1") {
		t.Error("the proxy is still held after healing")
	}
	healed, err := dial(t, p.pod, p.peerIP.String()+":5432", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer healed.Close()
	if got := rtt(t, healed); got > 5*time.Millisecond {
		t.Errorf("after healing a round trip takes %s: the delay is still there", got)
	}
	rules, _ := exec.Command("nsenter", "-t", fmt.Sprint(p.pid), "-n", "--", "iptables-save").CombinedOutput()
	if strings.Contains(string(rules), "TPCC-FAULT") {
		t.Errorf("healing left rules behind:\n%s", rules)
	}
}

func TestPartitionCutsThePeersAndNotTheOthers(t *testing.T) {
	p := newPair(t)
	echo(t, p.peer, 5432)
	// A second address on the peer's side stands for a client that is not a peer.
	if out, err := exec.Command("ip", "-n", p.peer, "addr", "add", "10.231.7.3/24", "dev", "eth0").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	inj := &Injector{Self: os.Args[0]}
	ctx := context.Background()
	a, err := inj.Apply(ctx, "p1", Fault{PID: p.pid, Action: Partition, Peers: []netip.Addr{p.peerIP}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Mechanism != MechanismIptables {
		t.Errorf("mechanism %q, want iptables", a.Mechanism)
	}
	if c, err := dial(t, p.pod, p.peerIP.String()+":5432", 500*time.Millisecond); err == nil {
		c.Close()
		t.Error("the pod reached its peer through a partition")
	}
	c, err := dial(t, p.pod, "10.231.7.3:5432", time.Second)
	if err != nil {
		t.Fatalf("the partition cut an address that is not a peer: %v", err)
	}
	c.Close()

	if err := inj.Heal(ctx, "p1", p.pid); err != nil {
		t.Fatal(err)
	}
	c, err = dial(t, p.pod, p.peerIP.String()+":5432", time.Second)
	if err != nil {
		t.Fatalf("after healing the pod still cannot reach its peer: %v", err)
	}
	c.Close()

	// Cutting the others too leaves only the node.
	if _, err := inj.Apply(ctx, "p2", Fault{PID: p.pid, Action: Partition, Peers: []netip.Addr{p.peerIP}, CutOthers: true,
		Node: netip.MustParseAddr("10.231.7.3")}); err != nil {
		t.Fatal(err)
	}
	if c, err := dial(t, p.pod, "10.231.7.3:5432", time.Second); err != nil {
		t.Errorf("cutting the others cut the node: %v", err)
	} else {
		c.Close()
	}
	if c, err := dial(t, p.pod, p.peerIP.String()+":5432", 500*time.Millisecond); err == nil {
		c.Close()
		t.Error("the pod reached its peer through a partition that cuts everything")
	}
	if err := inj.Heal(ctx, "p2", p.pid); err != nil {
		t.Fatal(err)
	}
}
