package tpcc

import (
	"strings"
	"testing"
)

func TestParsePoolerEndpoint(t *testing.T) {
	cases := []struct {
		in         string
		host, port string
		err        string
	}{
		{in: "pooler-rw:5432", host: "pooler-rw", port: "5432"},
		{in: "10.0.0.7:6432", host: "10.0.0.7", port: "6432"},
		{in: "[::1]:6432", host: "::1", port: "6432"},
		{in: "pooler-rw", err: "not HOST:PORT"},
		{in: ":6432", err: "no host"},
		{in: "pooler:", err: "not a number"},
		{in: "pooler:pg", err: "not a number"},
		{in: "pooler:70000", err: "not a number"},
		{in: "", err: "not HOST:PORT"},
	}
	for _, tc := range cases {
		host, port, err := ParsePoolerEndpoint(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePoolerEndpoint(%q) = %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || host != tc.host || port != tc.port {
			t.Errorf("ParsePoolerEndpoint(%q) = %q, %q, %v; want %q, %q", tc.in, host, port, err, tc.host, tc.port)
		}
	}
}

func TestParsePoolerMode(t *testing.T) {
	for in, want := range map[string]PoolerMode{"transaction": PoolerTransaction, "session": PoolerSession} {
		if got, err := ParsePoolerMode(in); err != nil || got != want {
			t.Errorf("ParsePoolerMode(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "statement", "Transaction"} {
		if _, err := ParsePoolerMode(in); err == nil {
			t.Errorf("ParsePoolerMode(%q) accepted", in)
		}
	}
}
