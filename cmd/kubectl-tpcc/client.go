package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// cluster is the API server the command talks to and the namespace it works in.
type cluster struct {
	c         client.Client
	namespace string
	all       bool // -A: look in every namespace
}

func connect(flags *genericclioptions.ConfigFlags, all bool) (*cluster, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, withCode(exitNoCluster, "no cluster: %v (set --kubeconfig, KUBECONFIG or ~/.kube/config)", err)
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, withCode(exitNoCluster, "no cluster: %v", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, apiError(err, "connect to", "the API server", "", "")
	}
	return &cluster{c: c, namespace: ns, all: all}, nil
}

const (
	resRuns       = "benchmarkruns.bench.oltp.io"
	resSuites     = "benchmarksuites.bench.oltp.io"
	resConfigMaps = "configmaps"
)

// target is what NAME names: a run or a suite.
type target struct {
	run   *benchv1.BenchmarkRun
	suite *benchv1.BenchmarkSuite
}

// find looks NAME up as a BenchmarkRun, then as a BenchmarkSuite; with -A in every namespace.
func (k *cluster) find(ctx context.Context, name string) (target, error) {
	if k.all {
		return k.findEverywhere(ctx, name)
	}
	run := &benchv1.BenchmarkRun{}
	err := k.c.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: name}, run)
	if err == nil {
		return target{run: run}, nil
	}
	if !apierrors.IsNotFound(err) {
		return target{}, apiError(err, "get", resRuns, k.namespace, name)
	}
	suite := &benchv1.BenchmarkSuite{}
	err = k.c.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: name}, suite)
	if err == nil {
		return target{suite: suite}, nil
	}
	if apierrors.IsNotFound(err) {
		return target{}, withCode(exitNotFound, "no BenchmarkRun or BenchmarkSuite %q in namespace %s (-A looks in every namespace)", name, k.namespace)
	}
	return target{}, apiError(err, "get", resSuites, k.namespace, name)
}

func (k *cluster) findEverywhere(ctx context.Context, name string) (target, error) {
	var found []target
	runs := &benchv1.BenchmarkRunList{}
	if err := k.c.List(ctx, runs); err != nil {
		return target{}, apiError(err, "list", resRuns, "", "")
	}
	for i := range runs.Items {
		if runs.Items[i].Name == name {
			found = append(found, target{run: &runs.Items[i]})
		}
	}
	suites := &benchv1.BenchmarkSuiteList{}
	if err := k.c.List(ctx, suites); err != nil {
		return target{}, apiError(err, "list", resSuites, "", "")
	}
	for i := range suites.Items {
		if suites.Items[i].Name == name {
			found = append(found, target{suite: &suites.Items[i]})
		}
	}
	switch len(found) {
	case 0:
		return target{}, withCode(exitNotFound, "no BenchmarkRun or BenchmarkSuite %q in any namespace", name)
	case 1:
		return found[0], nil
	}
	var where []string
	for _, f := range found {
		if f.run != nil {
			where = append(where, "BenchmarkRun "+f.run.Namespace+"/"+name)
		} else {
			where = append(where, "BenchmarkSuite "+f.suite.Namespace+"/"+name)
		}
	}
	return target{}, withCode(exitUsage, "%q names %d objects (%v): give -n NAMESPACE instead of -A", name, len(found), where)
}

// run gets one BenchmarkRun.
func (k *cluster) run(ctx context.Context, namespace, name string) (*benchv1.BenchmarkRun, error) {
	run := &benchv1.BenchmarkRun{}
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, run); err != nil {
		return nil, apiError(err, "get", resRuns, namespace, name)
	}
	return run, nil
}

// configMap gets a ConfigMap; nil (and no error) when it does not exist.
func (k *cluster) configMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := k.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, apiError(err, "get", resConfigMaps, namespace, name)
	}
	return cm, nil
}

func keyOf(namespace, name string) client.ObjectKey {
	return client.ObjectKey{Namespace: namespace, Name: name}
}
