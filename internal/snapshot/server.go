package snapshot

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// QueryIntervalsAfter is the query parameter of the incremental read: GET
// /v1/snapshot?intervalsAfter=N returns the intervals with index > N and hands the ones up to N
// over to the reader (the client drops them). N = -1 returns every retained interval.
const QueryIntervalsAfter = "intervalsAfter"

// QueryLedger is the query parameter that asks for the per-district New-Order ledger: GET
// /v1/snapshot?ledger=1 carries Snapshot.Ledger, a GET without it (or with ledger=0) leaves it out.
// The ledger grows with the warehouses (ten entries per home warehouse) and only a fault step's
// record reads it, so every other poll goes without. A client that predates the parameter ignores
// it and always sends the ledger.
const QueryLedger = "ledger"

// The endpoints a client pod serves.
const (
	PathSnapshot = "/v1/snapshot" // GET: the current snapshot
	PathStart    = "/v1/start"    // POST: release a paused run
	PathStop     = "/v1/stop"     // POST: end the run (stop terminals, finish the measured interval)
	PathMark     = "/v1/mark"     // POST ?label=L: record this moment under L in the client's clock
	// PathHealth is the kubelet's readiness probe: 204 while the process serves, nothing more. It
	// is the one endpoint RequireToken lets through without the control token.
	PathHealth = "/healthz" // GET: 204
)

// QueryLabel is the query parameter naming a mark (POST /v1/mark?label=fault-0).
const QueryLabel = "label"

// MarkReply is POST /v1/mark's reply: the moment recorded under the label, in the client's clock.
type MarkReply struct {
	Label string    `json:"label"`
	Time  time.Time `json:"time"`
}

// Control is what a running client provides to the handler. Start and Stop
// must be idempotent: the operator may repeat them after a restart, and a
// repeated call on a run already started (or stopping) must succeed. An error
// from Start or Stop means the request cannot be honoured in the run's state.
type Control struct {
	Snapshot func() (*Snapshot, error)
	// SnapshotAfter serves the incremental read: the snapshot with the intervals of index > after,
	// releasing those up to after. Optional: without it, the handler filters Snapshot's intervals
	// and nothing is released.
	SnapshotAfter func(after int) (*Snapshot, error)
	Start         func(ctx context.Context) error
	Stop          func(ctx context.Context) error
	// Mark records the moment under label and returns it; marking a label again returns the
	// first moment. Optional: without it POST /v1/mark answers 404.
	Mark func(ctx context.Context, label string) (time.Time, error)
}

// NewHandler serves the endpoints over c. GET /v1/snapshot takes intervalsAfter=N (the incremental
// read) and ledger=1 (the per-district ledger, QueryLedger), both optional. Replies are JSON;
// errors are {"error": "..."} with 400 for a malformed intervalsAfter or ledger, 405 for a wrong method, 409 when Start or Stop refuse
// and 500 when the snapshot cannot be produced. It authenticates nobody: wrap it in RequireToken
// wherever anyone but the caller's own machine can reach it.
func NewHandler(c Control) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathHealth, serveHealth)
	mux.HandleFunc(PathSnapshot, func(w http.ResponseWriter, r *http.Request) {
		if !readOnly(w, r) {
			return
		}
		ledger, ok := wantsLedger(r.URL.Query()[QueryLedger])
		if !ok {
			writeError(w, http.StatusBadRequest, QueryLedger+": want 1 (serve the ledger) or 0, got "+strconv.Quote(r.URL.Query().Get(QueryLedger)))
			return
		}
		var s *Snapshot
		var err error
		if raw, ok := r.URL.Query()[QueryIntervalsAfter]; ok {
			after, perr := strconv.Atoi(raw[0])
			if perr != nil || after < -1 || len(raw) != 1 {
				writeError(w, http.StatusBadRequest, QueryIntervalsAfter+": want one integer >= -1 (the last interval index the reader holds), got "+strconv.Quote(raw[0]))
				return
			}
			if c.SnapshotAfter != nil {
				s, err = c.SnapshotAfter(after)
			} else if s, err = c.Snapshot(); err == nil && s.Intervals != nil {
				c := *s
				c.Intervals = s.Intervals.After(after)
				s = &c
			}
		} else {
			s, err = c.Snapshot()
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, "snapshot: "+err.Error())
			return
		}
		if !ledger && s.Ledger != nil {
			c := *s
			totals := SumLedger(s.Ledger)
			c.Ledger, c.LedgerTotals = nil, &totals
			s = &c
		}
		body, err := Marshal(s)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "snapshot: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	})
	mux.HandleFunc(PathStart, actionHandler("start", c.Start))
	mux.HandleFunc(PathStop, actionHandler("stop", c.Stop))
	if c.Mark != nil {
		mux.HandleFunc(PathMark, markHandler(c.Mark))
	}
	return mux
}

// wantsLedger reads the ledger query parameter: absent or 0 leaves the ledger out, 1 (or true)
// serves it; ok is false for anything else, or for the parameter given twice.
func wantsLedger(raw []string) (ledger, ok bool) {
	switch {
	case len(raw) == 0:
		return false, true
	case len(raw) > 1:
		return false, false
	}
	switch raw[0] {
	case "1", "true":
		return true, true
	case "0", "false":
		return false, true
	}
	return false, false
}

// markHandler serves POST /v1/mark?label=L.
func markHandler(mark func(context.Context, string) (time.Time, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		label := r.URL.Query().Get(QueryLabel)
		if !validLabel(label) {
			writeError(w, http.StatusBadRequest, QueryLabel+": want 1 to 63 letters, digits, '-' or '_', got "+strconv.Quote(label))
			return
		}
		at, err := mark(r.Context(), label)
		if err != nil {
			writeError(w, http.StatusConflict, "mark: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(MarkReply{Label: label, Time: at})
	}
}

func validLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func actionHandler(name string, action func(context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		if err := action(r.Context()); err != nil {
			writeError(w, http.StatusConflict, name+": "+err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// serveHealth answers PathHealth: 204 to GET and HEAD, which is all a readiness probe needs.
func serveHealth(w http.ResponseWriter, r *http.Request) {
	if readOnly(w, r) {
		w.WriteHeader(http.StatusNoContent)
	}
}

// readOnly reports whether r is a GET or HEAD, answering 405 otherwise.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET")
		return false
	}
	return true
}

func methodNotAllowed(w http.ResponseWriter, allowed string) {
	w.Header().Set("Allow", allowed)
	writeError(w, http.StatusMethodNotAllowed, "method not allowed, use "+allowed)
}

type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(errorBody{Error: message}); err != nil {
		slog.Debug("write error reply", "err", err)
	}
}
