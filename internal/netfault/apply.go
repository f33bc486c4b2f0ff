package netfault

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Injector applies and heals faults, each in the network namespace of its PID, through nsenter.
// It keeps the delay proxies it started; a fault is keyed by the caller's ID.
type Injector struct {
	// Self is the executable the delay proxy runs from (its subcommand "proxy").
	Self string
	// Run runs a command in the network namespace of pid; nil: nsenter.
	Run func(ctx context.Context, pid int, argv ...string) ([]byte, error)

	mu      sync.Mutex
	proxies map[string]*exec.Cmd
}

// Applied is what applying a fault did.
type Applied struct {
	Mechanism string
	// Note says why the mechanism was chosen (no netem in the kernel).
	Note string
}

func (in *Injector) run(ctx context.Context, pid int, argv ...string) ([]byte, error) {
	if in.Run != nil {
		return in.Run(ctx, pid, argv...)
	}
	args := append([]string{"-t", strconv.Itoa(pid), "-n", "--"}, argv...)
	out, err := exec.CommandContext(ctx, "nsenter", args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

func (in *Injector) runAll(ctx context.Context, pid int, cmds [][]string) error {
	for _, c := range cmds {
		if _, err := in.run(ctx, pid, c...); err != nil {
			return err
		}
	}
	return nil
}

// Apply applies f under id, first healing whatever an earlier injector left in the namespace. On
// an error nothing of it is left.
func (in *Injector) Apply(ctx context.Context, id string, f Fault) (Applied, error) {
	if err := f.Validate(); err != nil {
		return Applied{}, err
	}
	if err := in.Heal(ctx, id, f.PID); err != nil {
		return Applied{}, fmt.Errorf("clearing what an earlier fault left: %w", err)
	}
	var a Applied
	var err error
	switch f.Action {
	case Partition:
		a.Mechanism = MechanismIptables
		err = in.runAll(ctx, f.PID, PartitionRules(f))
	case Delay:
		a, err = in.delay(ctx, id, f)
	}
	if err != nil {
		if herr := in.Heal(ctx, id, f.PID); herr != nil {
			return Applied{}, fmt.Errorf("%w; and healing what was applied: %v", err, herr)
		}
		return Applied{}, err
	}
	return a, nil
}

// delay applies a Delay with netem where the kernel has it, otherwise through the proxy.
func (in *Injector) delay(ctx context.Context, id string, f Fault) (Applied, error) {
	dev, err := in.defaultDevice(ctx, f.PID)
	if err != nil {
		return Applied{}, err
	}
	netemErr := in.runAll(ctx, f.PID, NetemRules(f, dev))
	if netemErr == nil {
		return Applied{Mechanism: MechanismNetem}, nil
	}
	_, _ = in.run(ctx, f.PID, NetemHeal(dev)...)
	if err := in.startProxy(ctx, id, f); err != nil {
		return Applied{}, err
	}
	if err := in.runAll(ctx, f.PID, ProxyRules(f)); err != nil {
		return Applied{}, err
	}
	return Applied{Mechanism: MechanismToxiproxy, Note: "netem unavailable (" + firstLine(netemErr.Error()) + ")"}, nil
}

var defaultRoute = regexp.MustCompile(`\bdev (\S+)`)

// defaultDevice is the interface of the namespace's default route.
func (in *Injector) defaultDevice(ctx context.Context, pid int) (string, error) {
	out, err := in.run(ctx, pid, "ip", "-o", "-4", "route", "show", "default")
	if err != nil {
		return "", err
	}
	m := defaultRoute.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("the pod's namespace has no default route: %q", strings.TrimSpace(string(out)))
	}
	return m[1], nil
}

// startProxy runs the delay proxy in the pod's namespace and waits for it to listen.
func (in *Injector) startProxy(ctx context.Context, id string, f Fault) error {
	cmd := exec.Command("nsenter", "-t", strconv.Itoa(f.PID), "-n", "--", in.Self, "proxy",
		"--out", fmt.Sprintf("127.0.0.1:%d", OutPort), "--in", fmt.Sprintf("0.0.0.0:%d", InPort),
		"--delay", f.Delay.String(), "--jitter", f.Jitter.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the delay proxy: %w", err)
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() && sc.Text() == ProxyReady {
			ready <- nil
			for sc.Scan() { // drain
			}
			return
		}
		ready <- errors.New("the delay proxy exited before listening")
	}()
	select {
	case err = <-ready:
	case <-time.After(10 * time.Second):
		err = errors.New("the delay proxy did not listen within 10s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	go func() { _ = cmd.Wait() }()
	in.mu.Lock()
	if in.proxies == nil {
		in.proxies = map[string]*exec.Cmd{}
	}
	in.proxies[id] = cmd
	in.mu.Unlock()
	return nil
}

// ProxyReady is the line the proxy prints once it listens.
const ProxyReady = "listening"

// Heal removes fault id from the namespace of pid (0: the namespace is gone, only its proxy is
// stopped): its rules, its qdiscs, its proxy. It can be repeated. It fails when the namespace
// still holds the fault's chains afterwards (or could not be read): the caller retries, and never
// records as healed what is not.
func (in *Injector) Heal(ctx context.Context, id string, pid int) error {
	in.mu.Lock()
	cmd := in.proxies[id]
	delete(in.proxies, id)
	in.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
	if pid <= 0 {
		return nil
	}
	for _, c := range HealRules() {
		_, _ = in.run(ctx, pid, c...) // a chain already gone is not an error
	}
	if dev, err := in.defaultDevice(ctx, pid); err == nil {
		// Only the root qdisc NetemRules added (prio, handle 1:), never another one.
		if out, err := in.run(ctx, pid, "tc", "qdisc", "show", "dev", dev, "root"); err == nil && strings.Contains(string(out), "qdisc prio 1:") {
			_, _ = in.run(ctx, pid, NetemHeal(dev)...)
		}
	}
	for _, table := range []string{tableFilter, tableNAT} {
		out, err := in.run(ctx, pid, "iptables-save", "-t", table)
		if err != nil {
			return fmt.Errorf("reading the %s table after healing: %w", table, err)
		}
		if strings.Contains(string(out), "TPCC-FAULT") {
			return fmt.Errorf("the %s table still holds the fault's chains after healing", table)
		}
	}
	return nil
}

// Active says whether the injector holds a proxy for id (a Delay applied through it).
func (in *Injector) Active(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.proxies[id] != nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
