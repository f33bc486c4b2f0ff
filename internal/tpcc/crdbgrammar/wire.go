// Package crdbgrammar checks the SQL this project sends to CockroachDB against CockroachDB's own
// grammar (github.com/cockroachdb/cockroachdb-parser, CockroachDB 25.2's parser as a Go module).
//
// It is test support: only _test.go files import it, so neither bin/tpcc nor bin/manager links
// the parser (hack/verify.sh fails if either does).
//
// The statements are not copied from the code into a list: a Recorder sits between the code and a
// real PostgreSQL server as a loopback TCP proxy and records every statement the client sends on
// the wire (simple queries and the extended protocol's Parse messages, with the number of
// parameters each Bind carries). Whatever path of the loader, the check or the executor sends a
// statement, the test sees it.
package crdbgrammar

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Sent is one distinct statement seen on the wire, attributed to the component that was current
// when it was first sent.
type Sent struct {
	Component string
	SQL       string
	Protocol  string // "simple" (Query message) or "extended" (Parse message)
	// BoundParams is the number of parameters the client bound in the Bind messages of this
	// statement (the largest seen), -1 when it was never bound (simple protocol, or not executed).
	BoundParams int
	Count       int // times sent
}

// Recorder is a loopback proxy to a PostgreSQL server that records the statements sent through it.
type Recorder struct {
	target string
	ln     net.Listener

	mu        sync.Mutex
	component string
	order     []string
	sent      map[string]*Sent
	conns     map[net.Conn]bool
	wg        sync.WaitGroup
}

// NewRecorder starts a proxy to the server of serverURL (postgres://…, sslmode must allow
// plain text) and returns it with the URL to give the code under test: the same URL through
// the proxy, with sslmode=disable so that the recorder can read the protocol.
func NewRecorder(serverURL string) (*Recorder, string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, "", fmt.Errorf("server URL: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	r := &Recorder{target: u.Host, ln: ln, sent: map[string]*Sent{}, conns: map[net.Conn]bool{}, component: "unlabelled"}
	r.wg.Add(1)
	go r.accept()
	q := u.Query()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	u.Host = ln.Addr().String()
	return r, u.String(), nil
}

// SetComponent attributes the statements sent from now on (and not seen before) to name.
func (r *Recorder) SetComponent(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.component = name
}

// Statements returns the distinct statements in the order they were first sent.
func (r *Recorder) Statements() []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Sent, len(r.order))
	for i, sql := range r.order {
		out[i] = *r.sent[sql]
	}
	return out
}

// Components returns the component names in sorted order with their count of distinct statements.
func Components(sent []Sent) map[string]int {
	out := map[string]int{}
	for _, s := range sent {
		out[s.Component]++
	}
	return out
}

// SortedComponents returns the keys of Components(sent), sorted.
func SortedComponents(sent []Sent) []string {
	var names []string
	for n := range Components(sent) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Close stops the proxy and closes every proxied connection.
func (r *Recorder) Close() {
	r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Recorder) accept() {
	defer r.wg.Done()
	for {
		client, err := r.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", r.target)
		if err != nil {
			client.Close()
			continue
		}
		r.mu.Lock()
		r.conns[client], r.conns[server] = true, true
		r.mu.Unlock()
		r.wg.Add(2)
		go func() {
			defer r.wg.Done()
			io.Copy(client, server) //nolint:errcheck // ends when either side closes
			client.Close()
		}()
		go func() {
			defer r.wg.Done()
			r.forward(client, server) //nolint:errcheck
			server.Close()
			r.mu.Lock()
			delete(r.conns, client)
			delete(r.conns, server)
			r.mu.Unlock()
		}()
	}
}

// Protocol codes of the untyped messages a connection may start with.
const (
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
)

// forward copies the frontend stream from client to server, recording Query, Parse and Bind.
func (r *Recorder) forward(client io.Reader, server io.Writer) error {
	in := bufio.NewReaderSize(client, 64<<10)
	var hdr [5]byte
	// Untyped start: SSL/GSS requests (answered 'N' by the server with sslmode=disable never
	// sent, but tolerated), then the startup or cancel message.
	for {
		if _, err := io.ReadFull(in, hdr[:4]); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(hdr[:4]))
		body := make([]byte, n-4)
		if _, err := io.ReadFull(in, body); err != nil {
			return err
		}
		if _, err := server.Write(append(hdr[:4:4], body...)); err != nil {
			return err
		}
		if len(body) >= 4 {
			code := binary.BigEndian.Uint32(body[:4])
			if code == sslRequestCode || code == gssEncRequestCode {
				continue
			}
		}
		break
	}
	statements := map[string]string{} // prepared statement name → SQL, per connection
	for {
		if _, err := io.ReadFull(in, hdr[:]); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(hdr[1:5]))
		body := make([]byte, n-4)
		if _, err := io.ReadFull(in, body); err != nil {
			return err
		}
		switch hdr[0] {
		case 'Q':
			sql, _ := cstring(body)
			r.record(sql, "simple", -1)
		case 'P':
			name, rest := cstring(body)
			sql, _ := cstring(rest)
			statements[name] = sql
			r.record(sql, "extended", -1)
		case 'B':
			_, rest := cstring(body)
			name, rest := cstring(rest)
			if len(rest) >= 2 {
				formats := int(binary.BigEndian.Uint16(rest[:2]))
				rest = rest[2:]
				if len(rest) >= 2*formats+2 {
					params := int(binary.BigEndian.Uint16(rest[2*formats:]))
					if sql, ok := statements[name]; ok {
						r.record(sql, "extended", params)
					}
				}
			}
		}
		if _, err := server.Write(append(hdr[:], body...)); err != nil {
			return err
		}
	}
}

func (r *Recorder) record(sql, protocol string, params int) {
	if strings.TrimSpace(sql) == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sent[sql]
	if !ok {
		s = &Sent{Component: r.component, SQL: sql, Protocol: protocol, BoundParams: -1}
		r.sent[sql] = s
		r.order = append(r.order, sql)
	}
	if params >= 0 {
		s.BoundParams = max(s.BoundParams, params)
		return // the Parse was counted
	}
	s.Count++
}

func cstring(b []byte) (string, []byte) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), b[i+1:]
		}
	}
	return string(b), nil
}
