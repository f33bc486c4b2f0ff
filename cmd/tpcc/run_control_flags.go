package main

import (
	"fmt"
	"net"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// checkControl validates --listen against --control-token-file and reads the token.
//
// The endpoints served on --listen start, stop and read the run: whoever reaches them can end the
// measured interval early. So the default is closed: without a token the process serves only on a
// loopback address (127.0.0.1, ::1, localhost), which nothing but this machine reaches — the way
// `tpcc run` is used by hand, polled with curl beside it. Any other address (":8080", "0.0.0.0",
// a pod IP, a host name) needs --control-token-file; then every request but GET /healthz must
// present the token (snapshot.RequireToken). The operator's client pods always run with one.
func (f *runFlags) checkControl() error {
	token, err := listenToken(f.listen, f.controlTokenFile)
	f.controlToken = token
	return err
}

// listenToken checks a --listen address against its --control-token-file (checkControl's rule, for
// every command that serves on --listen) and returns the token read from the file ("" without one).
func listenToken(listen, tokenFile string) (string, error) {
	if listen == "" {
		return "", nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("--listen %q: want HOST:PORT or :PORT: %v", listen, err)
	}
	if tokenFile == "" {
		if loopback(host) {
			return "", nil
		}
		return "", fmt.Errorf("--listen %s serves beyond this machine: give --control-token-file (a file holding the token "+
			"every request must present as \"Authorization: Bearer TOKEN\"), or listen on loopback (e.g. 127.0.0.1%s)", listen, listen[len(host):])
	}
	token, err := snapshot.ReadTokenFile(tokenFile)
	if err != nil {
		return "", fmt.Errorf("--control-token-file %s: %v", tokenFile, err)
	}
	return token, nil
}

// loopback says whether a listen host reaches only this machine. An empty host or an unspecified
// address listens on every interface; a host name other than localhost may resolve anywhere.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
