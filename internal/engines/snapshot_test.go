package engines

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestVolumeSnapshotState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status map[string]any
		ready  bool
		bytes  int64
		failed string
	}{
		{"no status yet", nil, false, 0, ""},
		{"cut, not ready", map[string]any{"readyToUse": false}, false, 0, ""},
		{"ready, size as a quantity", map[string]any{"readyToUse": true, "restoreSize": "2Gi"}, true, 2 << 30, ""},
		{"ready, size in bytes", map[string]any{"readyToUse": true, "restoreSize": int64(1234)}, true, 1234, ""},
		{"failed", map[string]any{"readyToUse": false, "error": map[string]any{"message": "driver refused"}}, false, 0, "driver refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			if tc.status != nil {
				u.Object["status"] = tc.status
			}
			ready, bytes, failed := VolumeSnapshotState(u)
			if ready != tc.ready || bytes != tc.bytes || failed != tc.failed {
				t.Errorf("state %v %d %q, want %v %d %q", ready, bytes, failed, tc.ready, tc.bytes, tc.failed)
			}
		})
	}
}
