package report

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// FairUse is the statement every report carries: the TPC's fair-use policy lets a workload derived
// from TPC-C publish results only if it says it is derived and not comparable to published TPC-C
// results (HammerDB and the published comparisons word it so).
const FairUse = "TPC-C-derived results, not audited TPC-C results: this workload is derived from the TPC Benchmark™ C " +
	"(TPC-C) specification and as such is not comparable to published TPC-C results; it complies with a subset of the " +
	"specification (no pricing, no audit, no full disclosure report). tpmC here is that derived workload's New-Order " +
	"rate. TPC Benchmark and TPC-C are trademarks of the Transaction Processing Performance Council."

// termsBlock is one part of a run's "equal terms" section, built once for both renderers.
type termsBlock struct {
	Heading string
	Items   []string
	Header  []string
	Rows    [][]string
}

// equalTermsBlocks are the run's terms: the isolation its transactions ran at and the retries
// inside them, the resource that bounded the result and its figures per vCPU and GiB, what the
// storage class delivered to small synchronous writes, the engine settings asked for beside what
// the database reports, and per step the disk and network of the pods. A block without anything
// to say (no calibration, no settings, no disk or network figures) is left out.
func equalTermsBlocks(run *benchv1.BenchmarkRun, result benchv1.Result) []termsBlock {
	out := []termsBlock{isolationBlock(run), perResourceBlock(result)}
	if env := run.Status.Environment; env != nil && len(env.StorageCalibration) > 0 {
		out = append(out, storageBlock(env.StorageCalibration, run.Status.Steps, result))
	}
	if env := run.Status.Environment; env != nil && len(env.Tuning) > 0 {
		out = append(out, tuningBlock(env.Tuning))
	}
	if io := ioBlock(run); len(io.Rows) > 0 || len(io.Items) > 0 {
		out = append(out, io)
	}
	return out
}

// isolationBlock is the isolation asked for and how, and per step the isolation read back and
// the retries made inside the transactions.
func isolationBlock(run *benchv1.BenchmarkRun) termsBlock {
	iso := termsBlock{Heading: "Isolation and retries"}
	desc := DescriptionOf(run)
	asked := effectiveIsolation(run.Spec.Workload, desc)
	how := "workload.isolation"
	if run.Spec.Workload.Isolation == "" {
		how = "the engine's default: workload.isolation omitted"
	}
	iso.Items = append(iso.Items, fmt.Sprintf("asked for %s (%s)%s", asked, how, isolationCaveat(desc)))
	var transactions, retries int64
	for _, s := range run.Status.Steps {
		for _, ts := range s.Transactions {
			transactions += ts.Count
		}
		retries += s.Retries
		iso.Rows = append(iso.Rows, []string{fmt.Sprint(s.Index), orDash(string(s.Isolation)), fmt.Sprint(s.Retries), retryShare(s)})
	}
	if transactions > 0 {
		iso.Items = append(iso.Items, fmt.Sprintf("%d retries inside %d completed transactions over all steps (%.2f %%): serialization failures, deadlocks and connections lost before commit, each retried inside its one logical transaction and counted there, never as another transaction",
			retries, transactions, 100*float64(retries)/float64(transactions)))
	}
	iso.Header = []string{"step", "<isolation (read back)", "retries", "retries per transaction"}
	return iso
}

// perResourceBlock is the result per vCPU and GiB on each basis, and its bottleneck with the
// evidence.
func perResourceBlock(result benchv1.Result) termsBlock {
	res := termsBlock{Heading: "Result per resource and bottleneck"}
	if len(result.PerResource) == 0 {
		res.Items = append(res.Items, "no tpmC per vCPU or GiB: no compliant result, or the database's CPU and memory are neither set nor measured")
	}
	for _, p := range result.PerResource {
		res.Rows = append(res.Rows, []string{basisWords(p.Basis), quantity(p.CPU, cores), quantity(p.Memory, gib), floatCell(p.TpmCPerVCPU), floatCell(p.TpmCPerGiB)})
	}
	res.Header = []string{"<database resources from", "CPU (cores)", "memory (GiB)", "tpmC per vCPU", "tpmC per GiB"}
	if b := result.Bottleneck; b != nil {
		res.Items = append(res.Items, bottleneckSentence(b))
		for _, e := range b.Evidence {
			res.Items = append(res.Items, "evidence: "+e)
		}
	}
	return res
}

// storageBlock is what the storage calibration measured on each node (or why it failed), beside
// the New-Order commit latency at the result step that it bounds.
func storageBlock(calibration []benchv1.StorageCalibration, steps []benchv1.StepResult, result benchv1.Result) termsBlock {
	st := termsBlock{Heading: "Storage calibration (before the load)"}
	st.Header = []string{"<node", "<storage class", "size", "<tool", "block", "fdatasync p50", "p99", "writes/s", "MB/s"}
	for _, c := range calibration {
		if c.Error != "" {
			st.Items = append(st.Items, fmt.Sprintf("node %s, %s %s: calibration failed: %s", orDash(c.Node), orDash(c.StorageClass), orDash(c.Size), c.Error))
			continue
		}
		st.Rows = append(st.Rows, []string{orDash(c.Node), orDash(c.StorageClass), orDash(c.Size), orDash(c.Tool), fmt.Sprint(c.BlockSize),
			syncLatency(c.SyncP50), syncLatency(c.SyncP99), fmt.Sprintf("%.0f", c.WritesPerSecond), fmt.Sprintf("%.2f", float64(c.BytesPerSecond)/1e6)})
	}
	if result.Step != nil && int(*result.Step) < len(steps) {
		if no, ok := steps[*result.Step].Transactions[benchv1.NewOrder]; ok {
			st.Items = append(st.Items, fmt.Sprintf("a commit waits for at least one such write on each copy it waits for: New-Order at the result step p50 %s, p90 %s",
				Latency(no.P50.Duration), Latency(no.P90.Duration)))
		}
	}
	return st
}

// tuningBlock is each engine setting asked for, where it came from, and what the database
// reports.
func tuningBlock(tuning []benchv1.EngineSetting) termsBlock {
	tu := termsBlock{Heading: "Engine settings asked for, and what the database reports"}
	tu.Header = []string{"<setting", "<source", "<asked", "<reported", "<note"}
	for _, s := range tuning {
		tu.Rows = append(tu.Rows, []string{s.Name, s.Source, s.Requested, orDash(s.Effective), orDash(s.Note)})
	}
	return tu
}

// ioBlock is per step each pod's disk and network, the standbys' lags and the WAL per
// transaction, and why a step has no disk and network figures when its telemetry says. Its rows
// and items are empty when no step has anything to show; otherwise the items end with how the
// figures were taken.
func ioBlock(run *benchv1.BenchmarkRun) termsBlock {
	io := termsBlock{Heading: "Disk, network and replication per step"}
	io.Header = []string{"step", "<pod", "disk read / write (MB/s)", "disk reads / writes per s", "network in / out (MB/s)", "<standby write / flush / replay lag", "WAL per transaction"}
	for _, s := range run.Status.Steps {
		t := s.Telemetry
		if t == nil {
			continue
		}
		lags := standbyLagCell(run.Name, t.Standbys)
		wal := "-"
		if t.WALBytesPerTransaction != nil {
			wal = fmt.Sprintf("%d B", *t.WALBytesPerTransaction)
		}
		rows := podIORows(run.Name, s.Index, t.Pods, lags, wal)
		io.Rows = append(io.Rows, rows...)
		if len(rows) == 0 && (lags != "-" || wal != "-") {
			io.Rows = append(io.Rows, []string{fmt.Sprint(s.Index), "-", "-", "-", "-", lags, wal})
		}
		if len(rows) == 0 && t.IOMetrics != "" && !strings.HasPrefix(t.IOMetrics, "kubelet") {
			io.Items = appendUnique(io.Items, fmt.Sprintf("disk and network: %s", t.IOMetrics))
		}
	}
	if len(io.Rows) > 0 || len(io.Items) > 0 {
		io.Items = append(io.Items, "per pod, the busiest interval of the step (kubelet cAdvisor counters through the API server's node proxy; disk is what the kernel charges the pod: cgroup v2 counts page-cache writeback, cgroup v1 does not); lags are each standby's largest in the step")
	}
	return io
}

// podIORows are a step's rows of the disk and network block, one per pod with I/O figures; the
// first carries the step's standby lags and WAL per transaction.
func podIORows(run string, step int32, pods []benchv1.PodUsage, lags, wal string) [][]string {
	var rows [][]string
	for _, p := range pods {
		if p.IO == nil {
			continue
		}
		cells := []string{fmt.Sprint(step), shortPod(run, p.Name) + " (" + strings.ToLower(p.Role) + ")",
			fmt.Sprintf("%.2f / %.2f", mb(p.IO.DiskReadBytesPerSecond), mb(p.IO.DiskWriteBytesPerSecond)),
			fmt.Sprintf("%d / %d", p.IO.DiskReadsPerSecond, p.IO.DiskWritesPerSecond),
			fmt.Sprintf("%.2f / %.2f", mb(p.IO.NetworkReceiveBytesPerSecond), mb(p.IO.NetworkTransmitBytesPerSecond)), "", ""}
		if len(rows) == 0 {
			cells[5], cells[6] = lags, wal
		}
		rows = append(rows, cells)
	}
	return rows
}

// equalTermsMarkdown renders the blocks.
func equalTermsMarkdown(blocks []termsBlock) string {
	var b strings.Builder
	b.WriteString("\n## Equal terms\n")
	for _, tb := range blocks {
		fmt.Fprintf(&b, "\n### %s\n\n", tb.Heading)
		for _, it := range tb.Items {
			fmt.Fprintf(&b, "- %s\n", cell(it))
		}
		if len(tb.Rows) > 0 {
			if len(tb.Items) > 0 {
				b.WriteString("\n")
			}
			header := make([]string, len(tb.Header))
			align := make([]string, len(tb.Header))
			for i, h := range tb.Header {
				header[i], align[i] = strings.TrimPrefix(h, "<"), "---:"
				if strings.HasPrefix(h, "<") {
					align[i] = "---"
				}
			}
			fmt.Fprintf(&b, "| %s |\n|%s|\n", strings.Join(header, " | "), strings.Join(align, "|"))
			for _, r := range tb.Rows {
				cells := make([]string, len(r))
				for i, c := range r {
					cells[i] = cell(c)
				}
				fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
			}
		}
	}
	return b.String()
}

// equalTermsHTML renders the blocks into a page.
func equalTermsHTML(p *page, blocks []termsBlock) {
	p.h(2, "Equal terms")
	for _, tb := range blocks {
		p.h(3, tb.Heading)
		p.list(tb.Items)
		if len(tb.Rows) > 0 {
			p.table(tb.Header, tb.Rows, nil)
		}
	}
}

// isolationCaveat is the engine's word on what its levels mean, as a clause to append.
func isolationCaveat(desc benchv1.DatabaseDescription) string {
	if desc.IsolationCaveat == "" {
		return ""
	}
	return "; " + desc.IsolationCaveat
}

// bottleneckSentence says what bounded the result and which step says so.
func bottleneckSentence(b *benchv1.Bottleneck) string {
	step := ""
	if b.Step != nil {
		step = fmt.Sprintf(" (the signals of step %d)", *b.Step)
	}
	if b.Resource == benchv1.BottleneckNotDetermined {
		return "bottleneck: not determined" + step
	}
	s := fmt.Sprintf("bottleneck: %s%s", bottleneckWords(b.Resource), step)
	if len(b.Also) > 0 {
		also := make([]string, len(b.Also))
		for i, a := range b.Also {
			also[i] = bottleneckWords(a)
		}
		s += "; also over its threshold: " + strings.Join(also, ", ")
	}
	return s
}

// bottleneckWords names a resource for people.
func bottleneckWords(r benchv1.BottleneckResource) string {
	switch r {
	case benchv1.BottleneckDatabaseCPU:
		return "database CPU"
	case benchv1.BottleneckClientCPU:
		return "client CPU (client-bound)"
	case benchv1.BottleneckDiskLatency:
		return "disk latency"
	case benchv1.BottleneckLockWaits:
		return "lock waits and conflicts"
	case benchv1.BottleneckReplication:
		return "replication (commits waiting for the synchronous standbys)"
	}
	return "not determined"
}

func basisWords(b benchv1.ResourceBasis) string {
	switch b {
	case benchv1.BasisRequests:
		return "the pods' requests"
	case benchv1.BasisLimits:
		return "the pods' limits"
	}
	return "the pods' measured peak (sum over pods)"
}

func retryShare(s benchv1.StepResult) string {
	var n int64
	for _, ts := range s.Transactions {
		n += ts.Count
	}
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(s.Retries)/float64(n))
}

func standbyLagCell(run string, standbys []benchv1.StandbyLag) string {
	var parts []string
	for _, sb := range standbys {
		write, flush := "-", "-"
		if sb.MaxWriteLag != nil {
			write = Latency(sb.MaxWriteLag.Duration)
		}
		if sb.MaxFlushLag != nil {
			flush = Latency(sb.MaxFlushLag.Duration)
		}
		parts = append(parts, fmt.Sprintf("%s %s / %s / %s", shortPod(run, sb.Name), write, flush, Latency(sb.MaxReplayLag.Duration)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func quantity(q *resource.Quantity, f func(resource.Quantity) string) string {
	if q == nil {
		return "-"
	}
	return f(*q)
}

func gib(q resource.Quantity) string {
	return fmt.Sprintf("%.2f", float64(q.Value())/(1<<30))
}

func floatCell(v *float64) string {
	if v == nil {
		return "-"
	}
	return num(*v)
}

// syncLatency is a disk flush's latency, in microseconds below a millisecond (a local SSD's
// fdatasync takes tens to hundreds of them).
func syncLatency(d *metav1.Duration) string {
	if d == nil || d.Duration == 0 {
		return "-"
	}
	if d.Duration < time.Millisecond {
		return fmt.Sprintf("%dµs", d.Duration.Round(time.Microsecond)/time.Microsecond)
	}
	return Latency(d.Duration)
}

func mb(v int64) float64 { return float64(v) / 1e6 }

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
