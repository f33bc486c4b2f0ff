package snapshot

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testToken = "0123456789abcdef0123456789abcdef"

// Every control endpoint of the real handler refuses a request without the token, or with a wrong
// one, with 401 and a JSON error, and the run behind it is not touched; the health endpoint answers
// anyone; the right token passes.
func TestRequireTokenRefusesUnauthenticatedRequests(t *testing.T) {
	cases := []struct {
		name, method, path string
		authorization      string // the Authorization header; "" sends none
		want               int
	}{
		{"stop without a token", http.MethodPost, PathStop, "", http.StatusUnauthorized},
		{"start without a token", http.MethodPost, PathStart, "", http.StatusUnauthorized},
		{"snapshot without a token", http.MethodGet, PathSnapshot, "", http.StatusUnauthorized},
		{"incremental read without a token", http.MethodGet, PathSnapshot + "?intervalsAfter=-1", "", http.StatusUnauthorized},
		{"HEAD snapshot without a token", http.MethodHead, PathSnapshot, "", http.StatusUnauthorized},
		{"stop with a wrong token", http.MethodPost, PathStop, "Bearer " + strings.Repeat("f", len(testToken)), http.StatusUnauthorized},
		{"stop with the token's prefix", http.MethodPost, PathStop, "Bearer " + testToken[:len(testToken)-1], http.StatusUnauthorized},
		{"stop with the token and more", http.MethodPost, PathStop, "Bearer " + testToken + "0", http.StatusUnauthorized},
		{"start with the token as Basic credentials", http.MethodPost, PathStart, "Basic " + testToken, http.StatusUnauthorized},
		{"start with the bare token", http.MethodPost, PathStart, testToken, http.StatusUnauthorized},
		{"start with an empty bearer", http.MethodPost, PathStart, "Bearer ", http.StatusUnauthorized},
		// An endpoint the handler does not have yet is refused before routing: a new control
		// endpoint is covered from the start, and an unauthenticated caller learns nothing of
		// which paths exist.
		{"unknown path without a token", http.MethodPost, "/v1/mark", "", http.StatusUnauthorized},
		{"cleaned-up path to stop without a token", http.MethodPost, "/healthz/../v1/stop", "", http.StatusUnauthorized},
		{"health without a token", http.MethodGet, PathHealth, "", http.StatusNoContent},
		{"health with a wrong token", http.MethodGet, PathHealth, "Bearer nope", http.StatusNoContent},
		{"health is read-only", http.MethodPost, PathHealth, "", http.StatusMethodNotAllowed},
		{"snapshot with the token", http.MethodGet, PathSnapshot, "Bearer " + testToken, http.StatusOK},
		{"lower-case scheme", http.MethodGet, PathSnapshot, "bearer " + testToken, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := newFakeRun(t)
			server := httptest.NewServer(RequireToken(NewHandler(run.control()), testToken))
			defer server.Close()
			req, err := http.NewRequest(tc.method, server.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.authorization != "" {
				req.Header.Set("Authorization", tc.authorization)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%s %s: status %d, want %d (%s)", tc.method, tc.path, resp.StatusCode, tc.want, body)
			}
			if run.started.Load() != 0 || run.stopped.Load() != 0 {
				t.Fatalf("the run was started %d and stopped %d times", run.started.Load(), run.stopped.Load())
			}
			switch tc.want {
			case http.StatusUnauthorized:
				if tc.method == http.MethodHead {
					break
				}
				var e errorBody
				if err := json.Unmarshal(body, &e); err != nil || !strings.Contains(e.Error, "control token") {
					t.Errorf("body %q: want a JSON error naming the control token", body)
				}
				if strings.Contains(string(body), testToken) {
					t.Error("the reply shows the token")
				}
				if resp.Header.Get("WWW-Authenticate") == "" || resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("headers %v: want WWW-Authenticate and application/json", resp.Header)
				}
			case http.StatusNoContent:
				if len(body) != 0 {
					t.Errorf("health replied %q: it must reveal nothing", body)
				}
			}
		})
	}
}

// The Go client presents the token of its context on every request; without one, the server's
// refusal reaches the caller as an error naming the status.
func TestClientPresentsTheContextToken(t *testing.T) {
	run := newFakeRun(t)
	server := httptest.NewServer(RequireToken(NewHandler(run.control()), testToken))
	defer server.Close()

	bare := context.Background()
	if _, err := Fetch(bare, nil, server.URL); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("fetch without a token: %v, want a 401", err)
	}
	if err := Start(bare, nil, server.URL); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("start without a token: %v, want a 401", err)
	}
	wrong := WithToken(bare, strings.Repeat("x", 32))
	if err := Start(wrong, nil, server.URL); err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "xxxx") {
		t.Fatalf("start with a wrong token: %v, want a 401 that does not quote it", err)
	}
	if run.started.Load() != 0 {
		t.Fatal("started by an unauthenticated request")
	}

	ctx := WithToken(bare, testToken)
	if err := Start(ctx, nil, server.URL); err != nil {
		t.Fatal(err)
	}
	s, err := FetchIntervalsAfter(ctx, nil, server.URL, -1)
	if err != nil || s.Phase != PhaseMeasuring {
		t.Fatalf("fetch with the token: %v, %v", s, err)
	}
	if err := Stop(ctx, nil, server.URL); err != nil {
		t.Fatal(err)
	}
	if run.started.Load() != 1 || run.stopped.Load() != 1 {
		t.Fatalf("started %d, stopped %d; want 1 and 1", run.started.Load(), run.stopped.Load())
	}
}

func TestTokens(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) != 2*tokenBytes || a == b || CheckToken(a) != nil {
		t.Fatalf("NewToken: %d characters, distinct %v, check %v", len(a), a != b, CheckToken(a))
	}
	for _, tc := range []struct{ token, want string }{
		{"", "empty"},
		{"short", "has 5 characters, want at least 16"},
		{"0123456789 abcdef", "position 11 that is not printable ASCII"},
		{"0123456789abcdef\x00", "position 17"},
		{"0123456789abcdéf", "not printable ASCII"},
	} {
		if err := CheckToken(tc.token); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckToken(%q) = %v, want %q", tc.token, err, tc.want)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadTokenFile(file); err != nil || got != testToken {
		t.Fatalf("ReadTokenFile = %q, %v", got, err)
	}
	if err := os.WriteFile(file, []byte("tiny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTokenFile(file); err == nil || strings.Contains(err.Error(), "tiny") {
		t.Fatalf("short token file: %v, want an error that does not quote it", err)
	}
	if _, err := ReadTokenFile(filepath.Join(dir, "absent")); err == nil {
		t.Fatal("a missing file was accepted")
	}
	defer func() {
		if recover() == nil {
			t.Error("RequireToken accepted an empty token")
		}
	}()
	RequireToken(http.NotFoundHandler(), "")
}
