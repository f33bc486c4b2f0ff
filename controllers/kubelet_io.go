package controllers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/cadvisor"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Disk and network per pod: each poll of a running step reads the cAdvisor metrics of every node
// that runs a database or client pod of the run, through the API server's node proxy (GET
// /api/v1/nodes/NODE/proxy/metrics/cadvisor: RBAC nodes/proxy get, nothing else of the kubelet),
// and turns the counters of two consecutive readings into per-second rates in the interval of the
// later one (internal/cadvisor). Without the permission or a kubelet that answers, the step goes
// on and its telemetry says why the figures are absent.

// +kubebuilder:rbac:groups="",resources=nodes/proxy,verbs=get

// IOMetricsSource names where the pods' disk and network figures come from when kubelets answer.
const IOMetricsSource = "kubelet cAdvisor (nodes/proxy)"

// NodeMetricsReader reads one node's cAdvisor metrics (Prometheus text).
type NodeMetricsReader func(ctx context.Context, node string) ([]byte, error)

// maxScrapeBytes bounds one node's scrape (a node of a few hundred containers serves a few MiB).
const maxScrapeBytes = 64 << 20

// KubeletMetricsReader reads nodes' cAdvisor metrics through the API server's node proxy with the
// manager's own credentials.
func KubeletMetricsReader(cfg *rest.Config) (NodeMetricsReader, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, node string) ([]byte, error) {
		u := *base
		u.Path = "/api/v1/nodes/" + url.PathEscape(node) + "/proxy/metrics/cadvisor"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxScrapeBytes))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodGet, corev1.Resource("nodes/proxy"), node, string(body[:min(len(body), 200)]), 0, false)
		}
		return body, nil
	}, nil
}

// ioReading is a pod's counters at the time they were read, kept between polls (and in the
// series ConfigMap, so a restarted manager goes on from them).
type ioReading struct {
	At       time.Time         `json:"at"`
	Counters cadvisor.Counters `json:"counters"`
}

// sampleIO reads the disk and network counters of the run's database and client pods and records
// their rates since the previous reading in st.
func (r *BenchmarkRunReconciler) sampleIO(ctx context.Context, st *stepSeries, namespace string, pods []corev1.Pod, roles map[string]string) {
	if st.Origin.IsZero() {
		return
	}
	if r.Config.NodeMetrics == nil {
		st.IOMetrics = "absent: the manager reads no kubelet metrics (--kubelet-metrics=false)"
		return
	}
	byNode := map[string]map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if byNode[p.Spec.NodeName] == nil {
			byNode[p.Spec.NodeName] = map[string]bool{}
		}
		byNode[p.Spec.NodeName][p.Name] = true
	}
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, node := range nodes {
		at := time.Now()
		body, err := r.Config.NodeMetrics(ctx, node)
		if err != nil {
			st.IOMetrics = ioMetricsAbsent(node, err)
			continue
		}
		counters, err := cadvisor.Parse(body, namespace, byNode[node])
		if err != nil {
			st.IOMetrics = fmt.Sprintf("absent: node %s: %v", node, err)
			continue
		}
		st.IOMetrics = IOMetricsSource
		st.addIO(counters, roles, at)
	}
}

// addIO records one reading of pods' counters taken at at: the rate since each pod's previous
// reading goes into the interval the reading falls in — by cAdvisor's update times when the scrape
// carries them (a reading not updated since the last is skipped), else by the scrapes'. It is pure.
func (st *stepSeries) addIO(counters map[string]cadvisor.Counters, roles map[string]string, at time.Time) {
	if st.IOCounters == nil {
		st.IOCounters = map[string]*ioReading{}
	}
	for pod, c := range counters {
		prev := st.IOCounters[pod]
		if prev == nil {
			st.IOCounters[pod] = &ioReading{At: at, Counters: c}
			continue
		}
		// Each reading's time: cAdvisor's own update time when both carry one (a reading it has
		// not updated since the previous tells nothing new and keeps that one as the baseline),
		// else the scrape's.
		since, when := prev.At, at
		if !c.At.IsZero() && !prev.Counters.At.IsZero() {
			if !c.At.After(prev.Counters.At) {
				continue
			}
			since, when = prev.Counters.At, c.At
		}
		st.IOCounters[pod] = &ioReading{At: at, Counters: c}
		if st.LengthSeconds <= 0 || when.Before(st.Origin) {
			continue
		}
		rate, ok := cadvisor.Rate(prev.Counters, c, when.Sub(since))
		if !ok {
			continue
		}
		if st.Resources == nil {
			st.Resources = map[string]*snapshot.PodSeries{}
		}
		p := st.Resources[pod]
		if p == nil {
			p = &snapshot.PodSeries{Role: roles[pod]}
			st.Resources[pod] = p
		}
		p.AddIO(int(when.Sub(st.Origin).Seconds()/st.LengthSeconds), snapshot.IORates{
			DiskReadBytes: rate.DiskReadBytes, DiskWriteBytes: rate.DiskWriteBytes, DiskReads: rate.DiskReads, DiskWrites: rate.DiskWrites,
			NetReceiveBytes: rate.NetReceiveBytes, NetTransmitBytes: rate.NetTransmitBytes,
			NetReceivePackets: rate.NetReceivePackets, NetTransmitPackets: rate.NetTransmitPackets})
	}
}

// ioMetricsAbsent says why there are no disk and network figures.
func ioMetricsAbsent(node string, err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "absent: the operator may not get nodes/proxy (the chart's kubeletMetrics.enabled grants it)"
	default:
		return fmt.Sprintf("absent: node %s: %v", node, err)
	}
}

// podIO is a pod's peak disk and network rates for status, nil without any.
func podIO(p *snapshot.PodSeries) *benchv1.PodIO {
	peak, ok := p.PeakIO()
	if !ok {
		return nil
	}
	return &benchv1.PodIO{DiskReadBytesPerSecond: peak.DiskReadBytes, DiskWriteBytesPerSecond: peak.DiskWriteBytes,
		DiskReadsPerSecond: peak.DiskReads, DiskWritesPerSecond: peak.DiskWrites,
		NetworkReceiveBytesPerSecond: peak.NetReceiveBytes, NetworkTransmitBytesPerSecond: peak.NetTransmitBytes,
		NetworkReceivePacketsPerSecond: peak.NetReceivePackets, NetworkTransmitPacketsPerSecond: peak.NetTransmitPackets}
}
