package snapshot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLoadHandler: GET /v1/load serves the progress to a request presenting the token and to no
// other; /healthz answers anyone; the reply reads back as sent.
func TestLoadHandler(t *testing.T) {
	const token = "0123456789abcdef0123"
	want := LoadProgress{Phase: "warehouses", Rows: 1_234_567, WarehouseFrom: 11, WarehouseTo: 20, WarehousesDone: 3, WarehousesSkipped: 1,
		ElapsedSeconds: 12.5, Finish: &FinishProgress{Done: 2, Total: 5, Running: []string{"ANALYZE stock"}}}
	srv := httptest.NewServer(RequireToken(NewLoadHandler(func() LoadProgress { return want }), token))
	t.Cleanup(srv.Close)

	if _, err := FetchLoad(context.Background(), nil, srv.URL); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without the token: %v, want 401", err)
	}
	got, err := FetchLoad(WithToken(context.Background(), token), nil, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v, want %+v", *got, want)
	}
	resp, err := http.Get(srv.URL + PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("%s: %s, want 204 without a token", PathHealth, resp.Status)
	}
	resp, err = http.Post(srv.URL+PathLoad, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST %s without the token: %s, want 401", PathLoad, resp.Status)
	}
}

// TestFetchLoadAll: each process's progress lands at its index; a hung one is an error of its
// own after the per-request timeout, and does not hold up the others.
func TestFetchLoadAll(t *testing.T) {
	release := make(chan struct{})
	var urls []string
	for i := range 5 {
		handler := NewLoadHandler(func() LoadProgress { return LoadProgress{Phase: "warehouses", WarehousesDone: i} })
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if i == 2 {
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}
			handler.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	t.Cleanup(func() { close(release) })
	start := time.Now()
	got, errs := FetchLoadAll(context.Background(), urls, Poll{Limit: 2, Timeout: 300 * time.Millisecond})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the poll took %s with one hung process of a 300ms timeout", took)
	}
	for i := range urls {
		if i == 2 {
			if got[i] != nil || errs[i] == nil {
				t.Errorf("hung process: %v, %v; want its timeout", got[i], errs[i])
			}
			continue
		}
		if errs[i] != nil || got[i] == nil || got[i].WarehousesDone != i {
			t.Errorf("process %d: %+v, %v", i, got[i], errs[i])
		}
	}
}
