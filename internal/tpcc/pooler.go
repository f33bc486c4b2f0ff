package tpcc

import (
	"fmt"
	"net"
	"strconv"
)

// PoolerMode is how a connection pooler in front of the server hands server connections to the
// client's: "" is no pooler, the client connects to the server itself.
type PoolerMode string

const (
	// PoolerNone: the client connects to the server directly.
	PoolerNone PoolerMode = ""
	// PoolerTransaction: a client connection holds a server connection for one transaction only;
	// session state (named prepared statements, SET) does not follow the client.
	PoolerTransaction PoolerMode = "transaction"
	// PoolerSession: a client connection holds one server connection until it disconnects, as
	// if it were connected directly.
	PoolerSession PoolerMode = "session"
)

// ParsePoolerMode parses a --pooler-mode value: transaction or session.
func ParsePoolerMode(s string) (PoolerMode, error) {
	switch m := PoolerMode(s); m {
	case PoolerTransaction, PoolerSession:
		return m, nil
	}
	return PoolerNone, fmt.Errorf("%q is not a pooler mode: transaction or session", s)
}

// ParsePoolerEndpoint checks a pooler's HOST:PORT: a host and a numeric port 1..65535.
func ParsePoolerEndpoint(s string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(s)
	if err != nil {
		return "", "", fmt.Errorf("%q is not HOST:PORT: %w", s, err)
	}
	if host == "" {
		return "", "", fmt.Errorf("%q has no host", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("%q: port %q is not a number in 1..65535", s, port)
	}
	return host, port, nil
}

// PoolerRouter is a driver whose step can run through a connection pooler
// (Capabilities.Pooler).
type PoolerRouter interface {
	// PoolerURL is url with the pooler's endpoint (a valid ParsePoolerEndpoint) in place of the
	// server's host and port, same user, password, database and parameters, plus whatever
	// every connection made from it needs to work in mode.
	PoolerURL(url, endpoint string, mode PoolerMode) (string, error)
}

// PoolerURL routes url through the pooler at endpoint when d can run through one.
func PoolerURL(d Driver, url, endpoint string, mode PoolerMode) (string, error) {
	r, ok := d.(PoolerRouter)
	if !d.Capabilities().Pooler || !ok {
		return "", fmt.Errorf("engine %s does not run through a connection pooler", d.Name())
	}
	if _, _, err := ParsePoolerEndpoint(endpoint); err != nil {
		return "", err
	}
	if _, err := ParsePoolerMode(string(mode)); err != nil {
		return "", err
	}
	return r.PoolerURL(url, endpoint, mode)
}
