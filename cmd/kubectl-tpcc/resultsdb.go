package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

// The results database (docs/results.md) is read directly: the plugin is not the manager and may
// link a database driver. It is named either by URI (--results-url, TPCC_RESULTS_URL), or as
// spec.results names it, by a Secret (--results-secret NAME[/KEY], in -n): the plugin reads the
// URI from it with your kubeconfig and, when its host is a Service of the cluster (CloudNativePG's
// <cluster>-rw.<namespace>), reaches it by port-forward through the API server, as kubectl
// port-forward does. It writes nothing there.

// resultsFlags name the results database.
type resultsFlags struct {
	url, secret string
}

func (f *resultsFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "results-url", "", "the results database's URI, postgres://… (default: env TPCC_RESULTS_URL)")
	cmd.Flags().StringVar(&f.secret, "results-secret", "", "a Secret NAME[/KEY] (key default uri) in -n holding the URI, as spec.results names it; a host that is a Service of the cluster is reached by port-forward")
}

// named says whether a results database was named.
func (f *resultsFlags) named() bool {
	return f.url != "" || f.secret != "" || os.Getenv("TPCC_RESULTS_URL") != ""
}

// resultsConn is an open connection to the results database, and what to close with it.
type resultsConn struct {
	*pgx.Conn
	closers []func()
}

func (c *resultsConn) Close() {
	if c.Conn != nil {
		c.Conn.Close(context.Background())
	}
	for _, f := range c.closers {
		f()
	}
}

// openResults connects to the results database the flags name.
func (o *options) openResults(ctx context.Context, f *resultsFlags) (*resultsConn, error) {
	uri := f.url
	if uri == "" && f.secret == "" {
		uri = os.Getenv("TPCC_RESULTS_URL")
	}
	if uri == "" && f.secret == "" {
		return nil, withCode(exitUsage, "name the results database: --results-url URI, --results-secret NAME[/KEY] or env TPCC_RESULTS_URL")
	}
	c := &resultsConn{}
	if f.secret != "" {
		forwarded, stop, err := o.uriFromSecret(ctx, f.secret)
		if err != nil {
			return nil, err
		}
		uri = forwarded
		if stop != nil {
			c.closers = append(c.closers, stop)
		}
	}
	conn, err := results.Connect(ctx, uri, 1)
	if err != nil {
		c.Close()
		return nil, withCode(exitNoResults, "%v", err)
	}
	c.Conn = conn
	return c, nil
}

// resultsError gives the results package's errors their exit codes.
func resultsError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, results.ErrNotFound):
		return withCode(exitNotFound, "%v", err)
	case errors.Is(err, results.ErrNoSchema):
		return withCode(exitNoResults, "%v", err)
	}
	var coded *codedError
	if errors.As(err, &coded) {
		return err
	}
	return withCode(exitNoResults, "reading the results database: %v", err)
}

// uriFromSecret reads the URI from the Secret and, when its host is a Service of the cluster,
// starts a port-forward to a ready pod behind it and returns the URI through it.
func (o *options) uriFromSecret(ctx context.Context, ref string) (string, func(), error) {
	name, key, _ := strings.Cut(ref, "/")
	if key == "" {
		key = "uri"
	}
	k, err := connect(o.config, false)
	if err != nil {
		return "", nil, err
	}
	secret := &corev1.Secret{}
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil, withCode(exitNoResults, "--results-secret: Secret %s not found in namespace %s", name, k.namespace)
		}
		return "", nil, apiError(err, "get", "secrets", k.namespace, name)
	}
	raw := strings.TrimSpace(string(secret.Data[key]))
	if raw == "" {
		return "", nil, withCode(exitNoResults, "--results-secret: Secret %s/%s has no key %q", k.namespace, name, key)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", nil, withCode(exitNoResults, "--results-secret: Secret %s/%s key %s is not a postgres:// URI with a host", k.namespace, name, key)
	}
	service, namespace, ok := clusterService(u.Hostname(), k.namespace)
	if !ok {
		return raw, nil, nil // outside the cluster: reached directly
	}
	port := 5432
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return "", nil, withCode(exitNoResults, "--results-secret: port %q is not a number", p)
		}
	}
	cfg, err := o.config.ToRESTConfig()
	if err != nil {
		return "", nil, withCode(exitNoCluster, "no cluster: %v", err)
	}
	pod, target, err := servicePod(ctx, k, namespace, service, port)
	if err != nil {
		return "", nil, err
	}
	local, stop, err := forward(cfg, namespace, pod, target)
	if err != nil {
		return "", nil, withCode(exitNoResults, "port-forward to pod %s/%s (Service %s) port %d: %v", namespace, pod, service, target, err)
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(local))
	return u.String(), stop, nil
}

// clusterService reads a host as a Service of the cluster: "svc", "svc.ns", "svc.ns.svc",
// "svc.ns.svc.cluster.local". A host with more labels, or an IP, is not one.
func clusterService(host, namespace string) (service, ns string, ok bool) {
	if net.ParseIP(host) != nil {
		return "", "", false
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	switch {
	case len(labels) == 1:
		return labels[0], namespace, true
	case len(labels) == 2:
		return labels[0], labels[1], true
	case len(labels) >= 3 && labels[2] == "svc" && (len(labels) == 3 || strings.Join(labels[3:], ".") == "cluster.local"):
		return labels[0], labels[1], true
	}
	return "", "", false
}

// servicePod is a ready pod behind a Service and the container port its port leads to.
func servicePod(ctx context.Context, k *cluster, namespace, name string, port int) (string, int, error) {
	svc := &corev1.Service{}
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, svc); err != nil {
		return "", 0, apiError(err, "get", "services", namespace, name)
	}
	target := intstr.FromInt32(int32(port))
	for _, p := range svc.Spec.Ports {
		if int(p.Port) == port && p.TargetPort.String() != "0" && p.TargetPort.String() != "" {
			target = p.TargetPort
		}
	}
	pods := &corev1.PodList{}
	if err := k.c.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(svc.Spec.Selector)}); err != nil {
		return "", 0, apiError(err, "list", "pods", namespace, "")
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || !ready(p) {
			continue
		}
		if target.Type == intstr.Int {
			return p.Name, target.IntValue(), nil
		}
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == target.StrVal {
					return p.Name, int(cp.ContainerPort), nil
				}
			}
		}
	}
	return "", 0, withCode(exitNoResults, "no ready pod behind Service %s/%s (selector %v)", namespace, name, svc.Spec.Selector)
}

func ready(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// forward port-forwards a local port on 127.0.0.1 to the pod's port, as kubectl port-forward does
// (WebSocket, falling back to SPDY); it returns the local port and how to stop.
func forward(cfg *rest.Config, namespace, pod string, port int) (int, func(), error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, nil, err
	}
	target := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return 0, nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, target)
	if ws, err := portforward.NewSPDYOverWebsocketDialer(target, cfg); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	stop, readyCh := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, readyCh, io.Discard, io.Discard)
	if err != nil {
		return 0, nil, err
	}
	failed := make(chan error, 1)
	go func() { failed <- fw.ForwardPorts() }()
	select {
	case <-readyCh:
	case err := <-failed:
		if err == nil {
			err = errors.New("the port-forward ended before it was ready")
		}
		return 0, nil, err
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		close(stop)
		return 0, nil, fmt.Errorf("no forwarded port: %v", err)
	}
	var once bool
	return int(ports[0].Local), func() {
		if !once {
			once = true
			close(stop)
		}
	}, nil
}

// findRecordedRun opens the results database and finds the run NAME in it: in the current
// namespace, or in any with -A. The caller closes the connection.
func (o *options) findRecordedRun(ctx context.Context, f *resultsFlags, name string) (*resultsConn, string, error) {
	conn, err := o.openResults(ctx, f)
	if err != nil {
		return nil, "", err
	}
	uid, err := results.FindRun(ctx, conn.Conn, name, o.resultsNamespace())
	if err != nil {
		conn.Close()
		return nil, "", resultsError(err)
	}
	return conn, uid, nil
}

// resultsNamespace is the namespace runs are looked up in: the current one, or any ("") with -A.
func (o *options) resultsNamespace() string {
	if o.config.Namespace != nil && !o.all {
		return *o.config.Namespace
	}
	return ""
}
