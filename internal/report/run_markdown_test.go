package report

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestSizingLine(t *testing.T) {
	cases := []struct {
		sizing *benchv1.DatabaseSizing
		want   string
	}{
		{nil, ""},
		{&benchv1.DatabaseSizing{Memory: resource.MustParse("8Gi"), MemoryFrom: "request",
			Settings: map[string]string{"shared_buffers": "1GB", "max_connections": "221"}, UserSet: []string{"shared_buffers"}},
			"- sized from 8Gi of memory (request) per instance (docs/sizing.md): max_connections=221, shared_buffers=1GB (the run's)\n"},
	}
	for _, tc := range cases {
		if got := sizingLine(tc.sizing); got != tc.want {
			t.Errorf("sizingLine = %q, want %q", got, tc.want)
		}
	}
}
