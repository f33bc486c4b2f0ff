package engines

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestMemoryOf(t *testing.T) {
	q := resource.MustParse
	cases := []struct {
		name  string
		r     corev1.ResourceRequirements
		bytes int64
		from  string
		ok    bool
	}{
		{"none", corev1.ResourceRequirements{}, 0, "", false},
		{"cpu only", corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("2")}}, 0, "", false},
		{"request", corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: q("4Gi")}}, 4 * GiB, "request", true},
		{"the limit wins over the request", corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: q("4Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: q("8Gi")}}, 8 * GiB, "limit", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bytes, from, ok := MemoryOf(tc.r)
			if bytes != tc.bytes || from != tc.from || ok != tc.ok {
				t.Errorf("MemoryOf = %d %q %v, want %d %q %v", bytes, from, ok, tc.bytes, tc.from, tc.ok)
			}
		})
	}
}
