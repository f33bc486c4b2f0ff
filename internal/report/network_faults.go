package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/adversity"
)

// networkFaultText says what a NetworkDelay or Partition injection did, for its line in the fault
// account: the pods, the fault as specified, how the injector applied it, and when it healed; ""
// for the other actions.
func networkFaultText(run *benchv1.BenchmarkRun, kind benchv1.StepKind, inj benchv1.FaultInjection) string {
	faults := run.Spec.Faults
	if kind == benchv1.StepAdversity { // its own faults; an engine with a primary recorded it
		faults, _ = adversity.Faults(run, inj.PrimaryBefore != "")
	}
	if len(inj.Pods) == 0 || int(inj.Fault) >= len(faults) {
		return ""
	}
	f := faults[inj.Fault]
	var what string
	switch f.Action {
	case benchv1.FaultNetworkDelay:
		what = fmt.Sprintf("%s added to each round trip", f.Delay.Duration)
		if f.Jitter != nil && f.Jitter.Duration > 0 {
			what = fmt.Sprintf("%s ± %s added to each round trip", f.Delay.Duration, f.Jitter.Duration)
		}
		what += " with the database's other pods"
	case benchv1.FaultPartition:
		what = "cut off from the database's other pods, the clients still reaching it"
		if f.Clients == benchv1.FaultClientsCut {
			what = "cut off from everything but its node, the clients included"
		}
	default:
		return ""
	}
	line := fmt.Sprintf(" %s (%s): %s", strings.Join(inj.Pods, ", "), f.Target, what)
	if f.Duration != nil {
		line += " for " + f.Duration.Duration.String()
	}
	if m := mechanismText(inj.Mechanism); m != "" {
		line += ", " + m
	}
	if inj.HealedTime != nil && inj.Time != nil {
		line += fmt.Sprintf("; healed %s after it was applied", inj.HealedTime.Sub(inj.Time.Time).Round(100*time.Millisecond))
	}
	return line
}

// mechanismText says how the fault injector applied a network fault.
func mechanismText(m string) string {
	switch m {
	case "netem":
		return "by the kernel's netem qdisc on the pods' interface"
	case "toxiproxy":
		return "by a Toxiproxy latency toxic in the pods' network namespace (the kernel has no netem)"
	case "iptables":
		return "by iptables rules dropping the packets"
	}
	return ""
}
