package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultRequestTimeout bounds one request when the context has no deadline.
const DefaultRequestTimeout = 10 * time.Second

// maxSnapshotBytes bounds a reply: five histograms are tens of KiB.
const maxSnapshotBytes = 16 << 20

// Fetch gets and parses the snapshot served at baseURL (e.g. "http://10.0.0.7:6060").
// A nil client means http.DefaultClient. Every request of this client presents the control token
// of its context (WithToken), if any.
func Fetch(ctx context.Context, client *http.Client, baseURL string) (*Snapshot, error) {
	body, err := do(ctx, client, http.MethodGet, baseURL, PathSnapshot, http.StatusOK)
	if err != nil {
		return nil, err
	}
	s, err := Parse(body)
	if err != nil {
		return nil, fmt.Errorf("GET %s%s: %w", baseURL, PathSnapshot, err)
	}
	return s, nil
}

// FetchIntervalsAfter is the incremental read: the snapshot served at baseURL with the intervals
// of index > after, handing those up to after over (the client drops them). after = -1 reads
// every retained interval and releases none. The reply carries no ledger (FetchQuery asks for it).
func FetchIntervalsAfter(ctx context.Context, client *http.Client, baseURL string, after int) (*Snapshot, error) {
	return FetchQuery(ctx, client, baseURL, Query{IntervalsAfter: after})
}

// Query is what an incremental read asks for: the intervals of index > IntervalsAfter (-1: every
// retained one) and, with Ledger, the per-district New-Order ledger (QueryLedger).
type Query struct {
	IntervalsAfter int
	Ledger         bool
}

// Path is the request's path and query: /v1/snapshot?intervalsAfter=N, and &ledger=1 with Ledger.
func (q Query) Path() string {
	path := fmt.Sprintf("%s?%s=%d", PathSnapshot, QueryIntervalsAfter, q.IntervalsAfter)
	if q.Ledger {
		path += "&" + QueryLedger + "=1"
	}
	return path
}

// FetchQuery is the incremental read of q: the snapshot served at baseURL with the intervals of
// index > q.IntervalsAfter, handing those up to it over, and the ledger when q.Ledger. A client
// that predates the ledger parameter sends its ledger whatever q says.
func FetchQuery(ctx context.Context, client *http.Client, baseURL string, q Query) (*Snapshot, error) {
	path := q.Path()
	body, err := do(ctx, client, http.MethodGet, baseURL, path, http.StatusOK)
	if err != nil {
		return nil, err
	}
	s, err := Parse(body)
	if err != nil {
		return nil, fmt.Errorf("GET %s%s: %w", baseURL, path, err)
	}
	return s, nil
}

// Start releases the paused run served at baseURL.
func Start(ctx context.Context, client *http.Client, baseURL string) error {
	_, err := do(ctx, client, http.MethodPost, baseURL, PathStart, http.StatusNoContent)
	return err
}

// SetMark records the moment under label in the clock of the client served at baseURL and returns
// it (the first moment, when the label was marked before).
func SetMark(ctx context.Context, client *http.Client, baseURL, label string) (time.Time, error) {
	path := fmt.Sprintf("%s?%s=%s", PathMark, QueryLabel, label)
	body, err := do(ctx, client, http.MethodPost, baseURL, path, http.StatusOK)
	if err != nil {
		return time.Time{}, err
	}
	var reply MarkReply
	if err := json.Unmarshal(body, &reply); err != nil || reply.Time.IsZero() {
		return time.Time{}, fmt.Errorf("POST %s%s: unreadable reply %q", baseURL, path, replyError(body))
	}
	return reply.Time, nil
}

// Stop ends the run served at baseURL.
func Stop(ctx context.Context, client *http.Client, baseURL string) error {
	_, err := do(ctx, client, http.MethodPost, baseURL, PathStop, http.StatusNoContent)
	return err
}

func do(ctx context.Context, client *http.Client, method, baseURL, path string, wantStatus int) ([]byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	url := strings.TrimSuffix(baseURL, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	if token := tokenFrom(ctx); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSnapshotBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read reply: %w", method, url, err)
	}
	if len(body) > maxSnapshotBytes {
		return nil, fmt.Errorf("%s %s: reply exceeds %d bytes", method, url, maxSnapshotBytes)
	}
	if resp.StatusCode != wantStatus {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, replyError(body))
	}
	return body, nil
}

// replyError extracts the handler's {"error": ...} message, or a bounded
// excerpt of an unexpected body.
func replyError(body []byte) string {
	var e errorBody
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	const excerpt = 200
	text := strings.TrimSpace(string(body))
	if len(text) > excerpt {
		text = text[:excerpt] + "…"
	}
	if text == "" {
		return "empty reply"
	}
	return text
}
