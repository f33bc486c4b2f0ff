package snapshot

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func validSnapshot(t *testing.T) *Snapshot {
	h := NewHistogram()
	_ = h.RecordValues(20_000, 100)
	return podFixture{
		pod: "run-0", from: 1, to: 10, active: 10,
		histograms: map[Transaction]*hdr.Histogram{NewOrder: h},
		rollbacks:  1, measured: 60, start: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
	}.snapshot(t)
}

func TestParseRoundTrip(t *testing.T) {
	s := validSnapshot(t)
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity != s.Identity || got.Transactions[NewOrder] != s.Transactions[NewOrder] ||
		!got.Times.MeasurementStart.Equal(s.Times.MeasurementStart) || got.Constants != s.Constants {
		t.Errorf("round trip changed the snapshot:\n got %+v\nwant %+v", got, s)
	}
}

func TestParseIgnoresUnknownFieldsOfTheSameMajorVersion(t *testing.T) {
	data, err := Marshal(validSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	_ = json.Unmarshal(data, &doc)
	doc["addedInAMinorRevision"] = map[string]any{"x": 1}
	data, _ = json.Marshal(doc)
	if _, err := Parse(data); err != nil {
		t.Fatalf("Parse rejected an additive field: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	good, err := Marshal(validSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(doc map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		change(doc)
		data, _ := json.Marshal(doc)
		return data
	}
	identity := func(doc map[string]any) map[string]any { return doc["identity"].(map[string]any) }
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"not JSON":      {data: []byte("<html>"), want: "not valid JSON"},
		"no version":    {data: edit(func(d map[string]any) { delete(d, "version") }), want: `no "version"`},
		"newer version": {data: edit(func(d map[string]any) { d["version"] = 2 }), want: "version 2 is not supported"},
		"newer version with other types": {
			data: edit(func(d map[string]any) { d["version"] = 2; d["transactions"] = []any{1} }),
			want: "version 2 is not supported",
		},
		"wrong type":     {data: edit(func(d map[string]any) { d["phase"] = 3 }), want: "snapshot version 1"},
		"empty pod":      {data: edit(func(d map[string]any) { identity(d)["pod"] = "" }), want: "identity.pod"},
		"no engine":      {data: edit(func(d map[string]any) { identity(d)["engine"] = "" }), want: "identity.engine"},
		"reversed range": {data: edit(func(d map[string]any) { identity(d)["warehouseFrom"] = 20 }), want: "identity.warehouseFrom..warehouseTo"},
		"range beyond loaded": {
			data: edit(func(d map[string]any) { identity(d)["warehouseTo"] = 2001 }), want: "identity.warehouseFrom..warehouseTo",
		},
		"active zero":   {data: edit(func(d map[string]any) { identity(d)["activeWarehouses"] = 0 }), want: "identity.activeWarehouses"},
		"bad wait":      {data: edit(func(d map[string]any) { identity(d)["wait"] = "sometimes" }), want: "identity.wait"},
		"unknown phase": {data: edit(func(d map[string]any) { d["phase"] = "sleeping" }), want: "unknown phase"},
		"negative time": {data: edit(func(d map[string]any) { d["times"].(map[string]any)["measuredSeconds"] = -1 }), want: "times.measuredSeconds"},
		"unknown transaction": {
			data: edit(func(d map[string]any) { d["transactions"].(map[string]any)["Refund"] = map[string]any{} }),
			want: `unknown transaction type "Refund"`,
		},
		"negative counter": {
			data: edit(func(d map[string]any) {
				d["transactions"].(map[string]any)["Payment"] = map[string]any{"errors": -1}
			}),
			want: "transactions.Payment: counters must be >= 0",
		},
		"rollback outside NewOrder": {
			data: edit(func(d map[string]any) {
				d["transactions"].(map[string]any)["Payment"] = map[string]any{"rollbacks": 1}
			}),
			want: "transactions.Payment.rollbacks",
		},
		"negative audit": {
			data: edit(func(d map[string]any) { d["audit"].(map[string]any)["remotePayments"] = -5 }),
			want: "audit.remotePayments",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestMarshalStampsVersionAndValidates(t *testing.T) {
	s := validSnapshot(t)
	s.Version = 0
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"version":1`) {
		t.Errorf("marshalled document lacks \"version\":1: %s", data[:60])
	}
	s.Identity.Pod = ""
	if _, err := Marshal(s); err == nil {
		t.Error("Marshal accepted a snapshot without a pod name")
	}
}
