package outbox

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestDecode(t *testing.T) {
	good := Record{Version: Version, Kind: KindRun, Run: &Run{Object: Object{UID: "u", Namespace: "n", Name: "r"},
		Spec: benchv1.BenchmarkRunSpec{Workload: benchv1.WorkloadSpec{Warehouses: 8}}, Steps: []StepFiles{{Index: 2, Data: StepDataFile(2)}}}}
	body, err := Encode(good)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(body)
	if err != nil || got.Run.Name != "r" || got.Run.Spec.Workload.Warehouses != 8 || got.Run.Steps[0].Data != "steps/2/step.json" {
		t.Errorf("round trip: %+v, %v", got.Run, err)
	}
	for _, bad := range []struct{ body, want string }{
		{`{"version": 2, "kind": "BenchmarkRun", "run": {}}`, "version 2, this writer knows versions 1..1"},
		{`{"version": 1, "kind": "BenchmarkRun"}`, `kind "BenchmarkRun" without its BenchmarkRun`},
		{`{"version": 1, "kind": "Pod", "run": {}}`, `kind "Pod"`},
		{`{`, "record.json: unexpected end"},
	} {
		if _, err := Decode([]byte(bad.body)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.body, err, bad.want)
		}
	}
}

func TestFiles(t *testing.T) {
	if StepSeriesFile(3, 0) != "steps/3/series.json.gz" || StepSeriesFile(3, 2) != "steps/3/series.part-2.json.gz" || StepDir(0) != "steps/0" {
		t.Error(StepSeriesFile(3, 0), StepSeriesFile(3, 2), StepDir(0))
	}
}
