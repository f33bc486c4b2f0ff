package tpcc

import (
	"context"
	"strings"
	"sync"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// FinishTracker counts the statements of a load's finish for LoadProgress.Finish: the driver
// announces how many it will run (Add) and brackets each (Begin, then the returned end). The
// core hands it to BulkLoader.Finish in its context (FinishTrackerFrom); a driver that reports
// nothing ignores it, and a nil tracker counts nothing, so drivers call it unconditionally.
type FinishTracker struct {
	mu      sync.Mutex
	done    int
	total   int
	next    int
	running []runningStatement
}

type runningStatement struct {
	id   int
	text string
}

// Add announces n more statements.
func (t *FinishTracker) Add(n int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += n
}

// Begin marks statement running (its text on one line); end marks it done. A statement begun
// beyond the announced ones raises the total.
func (t *FinishTracker) Begin(statement string) (end func()) {
	if t == nil {
		return func() {}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	id := t.next
	t.running = append(t.running, runningStatement{id: id, text: strings.Join(strings.Fields(statement), " ")})
	if t.done+len(t.running) > t.total {
		t.total = t.done + len(t.running)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			for i, r := range t.running {
				if r.id == id {
					t.running = append(t.running[:i], t.running[i+1:]...)
					break
				}
			}
			t.done++
		})
	}
}

// Progress is the statements done, announced and running, in the order they began.
func (t *FinishTracker) Progress() *snapshot.FinishProgress {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &snapshot.FinishProgress{Done: t.done, Total: t.total}
	for _, r := range t.running {
		p.Running = append(p.Running, r.text)
	}
	return p
}

type finishTrackerKey struct{}

// FinishTrackerFrom is the tracker of the finish running under ctx (BulkLoader.Finish's context),
// or nil.
func FinishTrackerFrom(ctx context.Context) *FinishTracker {
	t, _ := ctx.Value(finishTrackerKey{}).(*FinishTracker)
	return t
}

// WithFinishTracker returns ctx carrying t for the finish's driver (FinishTrackerFrom).
func WithFinishTracker(ctx context.Context, t *FinishTracker) context.Context {
	return context.WithValue(ctx, finishTrackerKey{}, t)
}
