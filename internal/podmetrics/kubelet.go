package podmetrics

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

	"github.com/tpcc-operator/tpcc-operator/internal/cadvisor"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/fanout"
)

// Disk and network per pod: each poll of a running step reads the cAdvisor metrics of every node
// that runs a database or client pod of the run, through the API server's node proxy (GET
// /api/v1/nodes/NODE/proxy/metrics/cadvisor: RBAC nodes/proxy get, nothing else of the kubelet),
// and turns the counters of two consecutive readings into per-second rates in the interval of the
// later one (internal/cadvisor). Without the permission or a kubelet that answers, the step goes
// on and its telemetry says why the figures are absent.

// +kubebuilder:rbac:groups="",resources=nodes/proxy,verbs=get

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

// ScrapeTimeout bounds one node's scrape: a kubelet (or the API server's proxy to it) that does not
// answer costs a poll this long, once, and its node's figures; the other nodes are read beside it.
const ScrapeTimeout = 10 * time.Second

// io reads the disk and network counters of the pods, every node at once (fanout.Each), each
// within Timeout (0: ScrapeTimeout), and records their rates since the previous reading in st.
func (s Sampler) io(ctx context.Context, st *measure.StepSeries, pods Pods) {
	if s.Nodes == nil {
		st.IOMetrics = "absent: the manager reads no kubelet metrics (--kubelet-metrics=false)"
		return
	}
	byNode := map[string]map[string]bool{}
	for _, p := range pods.Pods {
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
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = ScrapeTimeout
	}
	type scrape struct {
		at   time.Time
		body []byte
		err  error
	}
	scrapes := make([]scrape, len(nodes))
	fanout.Each(len(nodes), fanout.DefaultLimit, func(i int) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		scrapes[i].at = time.Now()
		scrapes[i].body, scrapes[i].err = s.Nodes(ctx, nodes[i])
	})
	for i, node := range nodes {
		sc := scrapes[i]
		if sc.err != nil {
			st.IOMetrics = ioMetricsAbsent(node, sc.err)
			continue
		}
		counters, err := cadvisor.Parse(sc.body, pods.Namespace, byNode[node])
		if err != nil {
			st.IOMetrics = fmt.Sprintf("absent: node %s: %v", node, err)
			continue
		}
		st.IOMetrics = measure.IOMetricsSource
		st.AddIO(counters, pods.Roles, sc.at)
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
