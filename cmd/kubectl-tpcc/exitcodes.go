package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/clientcmd"
)

// Exit codes (docs/kubectl-tpcc.md lists them).
const (
	exitOK         = 0
	exitError      = 1 // anything else
	exitUsage      = 2 // bad arguments or flags
	exitNotFound   = 3 // no such run or suite
	exitNoCluster  = 4 // no kubeconfig, the API server does not answer, or tpcc-operator's CRDs are not installed
	exitForbidden  = 5 // the user may not do what the command needs (the message names the verb and resource)
	exitIncomplete = 6 // the run or suite has not ended: the output holds what exists so far; or status -w timed out
	exitRunFailed  = 7 // status -w: the run or suite ended Failed; compare --baseline: the run has no result
	exitRegression = 8 // compare --baseline: a figure is worse than the tolerance beyond its noise
	exitNoResults  = 9 // the results database cannot be reached, has no schema, or was not named properly
)

// exitError is an error with its exit code.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func withCode(code int, format string, a ...any) error {
	return &codedError{code: code, err: fmt.Errorf(format, a...)}
}

// codeOf is an error's exit code.
func codeOf(err error) int {
	var c *codedError
	if errors.As(err, &c) {
		return c.code
	}
	return exitError
}

// apiError names what failed — verb, resource, namespace, object — and gives it its exit code.
func apiError(err error, verb, resource, namespace, name string) error {
	if err == nil {
		return nil
	}
	where := resource
	if name != "" {
		where += " " + name
	}
	if namespace != "" {
		where += " in namespace " + namespace
	}
	switch {
	case apierrors.IsNotFound(err):
		return withCode(exitNotFound, "%s not found", where)
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return withCode(exitForbidden, "no permission to %s %s: %v", verb, where, err)
	case meta.IsNoMatchError(err):
		return withCode(exitNoCluster, "the cluster does not know %s: is tpcc-operator installed (its CRDs)? %v", resource, err)
	case noCluster(err):
		return withCode(exitNoCluster, "no cluster: %v", err)
	}
	return fmt.Errorf("%s %s: %w", verb, where, err)
}

// noCluster says whether err means the API server could not be reached or configured.
func noCluster(err error) bool {
	var urlErr *url.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return clientcmd.IsEmptyConfig(err) || clientcmd.IsConfigurationInvalid(err) || errors.As(err, &urlErr) || errors.As(err, &opErr) ||
		errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}
