package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// PathLoad is where a loading process (`tpcc load --listen`) serves its progress: GET, a
// LoadProgress. Like every endpoint but PathHealth, it answers only requests presenting the run's
// control token when the process runs with one (RequireToken).
const PathLoad = "/v1/load"

// LoadProgress is how far one loading process is: the rows it wrote, the warehouses of its range
// done (those it found already loaded included), and, in the finish, the statements.
type LoadProgress struct {
	// Phase is schema, items, warehouses, finish or done.
	Phase string `json:"phase"`
	// Rows this process wrote so far (the item table's included, when it loaded it).
	Rows int64 `json:"rows"`
	// WarehouseFrom..WarehouseTo is the process's range.
	WarehouseFrom int `json:"warehouseFrom"`
	WarehouseTo   int `json:"warehouseTo"`
	// WarehousesDone of the range, WarehousesSkipped of them found loaded by an earlier process.
	WarehousesDone    int `json:"warehousesDone"`
	WarehousesSkipped int `json:"warehousesSkipped"`
	// ElapsedSeconds since the process started loading.
	ElapsedSeconds float64 `json:"elapsedSeconds"`
	// Finish is the finish's progress, while and once it runs (nil before, or with a driver that
	// does not report it).
	Finish *FinishProgress `json:"finish,omitempty"`
}

// FinishProgress is how far a load's finish is: Done of Total statements (keys, indexes, ANALYZE,
// VACUUM, …; Total may grow when a statement's need shows only on the way), and the ones running.
type FinishProgress struct {
	Done    int      `json:"done"`
	Total   int      `json:"total"`
	Running []string `json:"running,omitempty"`
}

// NewLoadHandler serves a loading process's progress at PathLoad and PathHealth. It authenticates
// nobody: wrap it in RequireToken wherever anyone but the caller's own machine can reach it.
func NewLoadHandler(progress func() LoadProgress) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathHealth, serveHealth)
	mux.HandleFunc(PathLoad, func(w http.ResponseWriter, r *http.Request) {
		if !readOnly(w, r) {
			return
		}
		body, err := json.Marshal(progress())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "load progress: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	})
	return mux
}

// FetchLoad reads the load progress served at baseURL, presenting the control token of ctx
// (WithToken), if any.
func FetchLoad(ctx context.Context, client *http.Client, baseURL string) (*LoadProgress, error) {
	body, err := do(ctx, client, http.MethodGet, baseURL, PathLoad, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var p LoadProgress
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("GET %s%s: %w", baseURL, PathLoad, err)
	}
	return &p, nil
}

// FetchLoadAll reads the load progress of every process of urls, p.Limit at once, each within
// p.Timeout; in the order of urls, a process that could not be read has a nil progress and its
// error.
func FetchLoadAll(ctx context.Context, urls []string, p Poll) ([]*LoadProgress, []error) {
	return fetchEach(ctx, urls, p, func(ctx context.Context, url string) (*LoadProgress, error) {
		return FetchLoad(ctx, p.Client, url)
	})
}
