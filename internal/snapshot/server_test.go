package snapshot

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// fakeRun is a minimal run behind the handler: paused until started.
type fakeRun struct {
	started, stopped atomic.Int32
	snapshotErr      error
	snapshot         *Snapshot
}

func (r *fakeRun) control() Control {
	return Control{
		Snapshot: func() (*Snapshot, error) {
			if r.snapshotErr != nil {
				return nil, r.snapshotErr
			}
			s := *r.snapshot
			if r.started.Load() > 0 {
				s.Phase = PhaseMeasuring
			}
			return &s, nil
		},
		Start: func(context.Context) error { r.started.Add(1); return nil },
		Stop: func(context.Context) error {
			if r.started.Load() == 0 {
				return errors.New("run not started")
			}
			r.stopped.Add(1)
			return nil
		},
	}
}

func newFakeRun(t *testing.T) *fakeRun {
	h := NewHistogram()
	_ = h.RecordValues(15_000, 42)
	s := podFixture{pod: "client-0", from: 1, to: 10, active: 10, start: stepStart, measured: 30,
		histograms: map[Transaction]*hdr.Histogram{NewOrder: h}}.snapshot(t)
	s.Phase = PhasePaused
	return &fakeRun{snapshot: s}
}

func TestClientAndHandlerRoundTrip(t *testing.T) {
	run := newFakeRun(t)
	server := httptest.NewServer(NewHandler(run.control()))
	defer server.Close()
	ctx := context.Background()

	s, err := Fetch(ctx, server.Client(), server.URL)
	if err != nil {
		t.Fatal(err)
	}
	if s.Phase != PhasePaused || s.Identity.Pod != "client-0" || s.Transactions[NewOrder].Commits != 42 {
		t.Fatalf("fetched %+v", s)
	}
	if err := Stop(ctx, server.Client(), server.URL); err == nil || !strings.Contains(err.Error(), "409 Conflict: stop: run not started") {
		t.Fatalf("stop before start: %v, want the handler's 409 message", err)
	}
	for range 2 { // start is idempotent for the operator: it may repeat it after a restart
		if err := Start(ctx, server.Client(), server.URL+"/"); err != nil {
			t.Fatal(err)
		}
	}
	if s, err = Fetch(ctx, nil, server.URL); err != nil || s.Phase != PhaseMeasuring {
		t.Fatalf("after start: phase %v, error %v", s, err)
	}
	if err := Stop(ctx, server.Client(), server.URL); err != nil {
		t.Fatal(err)
	}
	if run.started.Load() != 2 || run.stopped.Load() != 1 {
		t.Errorf("start called %d times, stop %d; want 2 and 1", run.started.Load(), run.stopped.Load())
	}
}

func TestHandlerErrors(t *testing.T) {
	run := newFakeRun(t)
	server := httptest.NewServer(NewHandler(run.control()))
	defer server.Close()

	for name, tc := range map[string]struct {
		method, path string
		status       int
		body         string
	}{
		"POST snapshot": {method: http.MethodPost, path: PathSnapshot, status: http.StatusMethodNotAllowed, body: "use GET"},
		"GET start":     {method: http.MethodGet, path: PathStart, status: http.StatusMethodNotAllowed, body: "use POST"},
		"unknown path":  {method: http.MethodGet, path: "/v2/snapshot", status: http.StatusNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, server.URL+tc.path, nil)
			resp, err := server.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			body := new(strings.Builder)
			_, _ = io.Copy(body, resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(body.String(), tc.body) {
				t.Errorf("%s %s: %d %q, want %d containing %q", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.body)
			}
		})
	}

	run.snapshotErr = errors.New("histograms busy")
	if _, err := Fetch(context.Background(), server.Client(), server.URL); err == nil ||
		!strings.Contains(err.Error(), "500 Internal Server Error: snapshot: histograms busy") {
		t.Errorf("fetch of a failing snapshot: %v", err)
	}
	run.snapshotErr = nil
	run.snapshot.Identity.Wait = "sometimes"
	if _, err := Fetch(context.Background(), server.Client(), server.URL); err == nil || !strings.Contains(err.Error(), "identity.wait") {
		t.Errorf("fetch of an invalid snapshot: %v, want the validation error", err)
	}
}

func TestFetchErrors(t *testing.T) {
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>hello</html>"))
	}))
	defer notJSON.Close()
	newer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"version": 2, "anything": true}`))
	}))
	defer newer.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()

	shortCtx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	for name, tc := range map[string]struct {
		ctx  context.Context
		url  string
		want string
	}{
		"not JSON":      {ctx: context.Background(), url: notJSON.URL, want: "not valid JSON"},
		"newer version": {ctx: context.Background(), url: newer.URL, want: "snapshot version 2 is not supported"},
		"timeout":       {ctx: shortCtx, url: slow.URL, want: "context deadline exceeded"},
		"refused":       {ctx: context.Background(), url: "http://127.0.0.1:1", want: "connection refused"},
		"bad URL":       {ctx: context.Background(), url: "://nope", want: "missing protocol scheme"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Fetch(tc.ctx, nil, tc.url)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), PathSnapshot) {
				t.Fatalf("error = %v, want one naming %s and containing %q", err, PathSnapshot, tc.want)
			}
		})
	}
}
