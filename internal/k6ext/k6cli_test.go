package k6ext

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// instantExecutor completes every transaction at once without a database.
type instantExecutor struct{}

func (instantExecutor) NewOrder(ctx context.Context, in *tpcc.NewOrderInput) (tpcc.NewOrderResult, error) {
	return tpcc.NewOrderResult{RolledBack: in.Lines[len(in.Lines)-1].ItemID == tpcc.UnusedItemID}, ctx.Err()
}
func (instantExecutor) Payment(ctx context.Context, _ *tpcc.PaymentInput) (tpcc.PaymentResult, error) {
	return tpcc.PaymentResult{}, ctx.Err()
}
func (instantExecutor) OrderStatus(ctx context.Context, _ *tpcc.OrderStatusInput) (tpcc.OrderStatusResult, error) {
	return tpcc.OrderStatusResult{}, ctx.Err()
}
func (instantExecutor) Delivery(ctx context.Context, _ *tpcc.DeliveryInput) (tpcc.DeliveryResult, error) {
	return tpcc.DeliveryResult{Delivered: 10}, ctx.Err()
}
func (instantExecutor) StockLevel(ctx context.Context, _ *tpcc.StockLevelInput) (tpcc.StockLevelResult, error) {
	return tpcc.StockLevelResult{}, ctx.Err()
}
func (instantExecutor) Close() {}

var k6TestConstants = tpcc.Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}

func TestK6InProcess(t *testing.T) {
	s, err := NewSession(Config{Engine: pgwire.PostgresDriver(), URL: "postgres://unused", Warehouses: 2, ActiveWarehouses: 2,
		From: 1, To: 2, Wait: snapshot.WaitNone, RampUp: 100 * time.Millisecond, Duration: time.Second, Pod: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UseExecutor(instantExecutor{}, k6TestConstants); err != nil {
		t.Fatal(err)
	}
	Install(s)
	defer Install(nil)
	code := RunK6(context.Background(), K6Invocation{
		Args: []string{"run", "--quiet", "--address=", "--summary-mode=disabled", "-"}, Env: OfflineEnv(nil),
		Stdin: bytes.NewReader(DefaultScript)})
	if code != 0 {
		t.Fatalf("k6 exit code %d, want 0", code)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Phase != snapshot.PhaseDone || snap.Transactions[snapshot.NewOrder].Commits == 0 {
		t.Fatalf("after k6: phase %s, new-order commits %d; want done and some", snap.Phase, snap.Transactions[snapshot.NewOrder].Commits)
	}
	// The interval covers the configured second; it may end late when the machine is busy (CI
	// runs the packages' tests in parallel on two cores: 1.22 s was seen), and tpmC divides by the
	// interval actually measured, so only a run that does not stop would be wrong.
	if d := snap.Times.MeasuredSeconds; d < 0.95 || d > 5 {
		t.Fatalf("measured %.2fs, want 1s (up to 5s on a busy machine)", d)
	}

	// A second k6 in the same process, with a failing threshold, returns its code instead of exiting.
	code = RunK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "--summary-mode=disabled", "-"},
		Env:   OfflineEnv(nil),
		Stdin: strings.NewReader("export const options = {iterations: 1, thresholds: {iterations: ['count>5']}}\nexport default function () {}")})
	if code != 99 {
		t.Fatalf("k6 exit code %d for a crossed threshold, want 99", code)
	}
}

func TestOfflineEnv(t *testing.T) {
	cases := []struct {
		name  string
		extra map[string]string
		want  map[string]string
	}{
		{name: "nothing added", want: map[string]string{"K6_NO_USAGE_REPORT": "true", "K6_AUTO_EXTENSION_RESOLUTION": "false"}},
		{name: "an added variable", extra: map[string]string{"TPCC_MAX_DURATION": "1m"},
			want: map[string]string{"K6_NO_USAGE_REPORT": "true", "K6_AUTO_EXTENSION_RESOLUTION": "false", "TPCC_MAX_DURATION": "1m"}},
		{name: "the caller wins", extra: map[string]string{"K6_NO_USAGE_REPORT": "false"},
			want: map[string]string{"K6_NO_USAGE_REPORT": "false", "K6_AUTO_EXTENSION_RESOLUTION": "false"}},
	}
	for _, c := range cases {
		if got := OfflineEnv(c.extra); !maps.Equal(got, c.want) {
			t.Errorf("%s: OfflineEnv(%v) = %v, want %v", c.name, c.extra, got, c.want)
		}
	}
	if got := OfflineEnv(nil); got["K6_NO_USAGE_REPORT"] != "true" {
		t.Errorf("an earlier caller's variable changed the shared defaults: %v", got)
	}
}

// TestOfflineEnvProvisionsNothing runs a script importing an extension the binary lacks: with
// OfflineEnv k6 reports the unknown module instead of asking its build service for a binary.
func TestOfflineEnvProvisionsNothing(t *testing.T) {
	t.Setenv("K6_AUTO_EXTENSION_RESOLUTION", "true") // the process's own environment loses
	code, _, stderr := runK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "-"},
		Env: OfflineEnv(nil), Stdin: strings.NewReader("import x from 'k6/x/not-built-in'\nexport default function () {}")})
	if code != 107 || !strings.Contains(stderr, "unknown modules") || !strings.Contains(stderr, "k6/x/not-built-in") || strings.Contains(stderr, "provision") {
		t.Fatalf("exit code %d, want 107 with the unknown module named and no provisioning; stderr:\n%s", code, stderr)
	}
}
