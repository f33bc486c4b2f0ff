package storageprobe

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// What the operator records of a probe: its result from the probe pod's termination message, into
// the run's status.environment.storageCalibration, and the event that sums the calibration up.

// ParseMessage reads a storage probe's termination message; it is pure.
func ParseMessage(pod, message string) (Result, error) {
	var res Result
	if err := json.Unmarshal([]byte(message), &res); err != nil {
		return Result{}, fmt.Errorf("pod %s: its termination message is not a storage probe's result: %w", pod, err)
	}
	if res.Error != "" {
		return Result{}, fmt.Errorf("pod %s: %s", pod, res.Error)
	}
	return res, nil
}

// Fill copies a probe's result into its record; it is pure.
func Fill(rec *benchv1.StorageCalibration, res Result) {
	rec.Tool, rec.BlockSize = res.Tool, res.BlockSize
	rec.SyncP50, rec.SyncP99 = &metav1.Duration{Duration: res.SyncP50}, &metav1.Duration{Duration: res.SyncP99}
	rec.WritesPerSecond, rec.BytesPerSecond = res.WritesPerSecond, res.BytesPerSecond
}

// Words is the calibration's event: each node's fdatasync p50/p99, or its error; pure.
func Words(records []benchv1.StorageCalibration) string {
	parts := make([]string, 0, len(records))
	for _, c := range records {
		if c.Error != "" {
			parts = append(parts, fmt.Sprintf("%s: failed: %s", c.Node, c.Error))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s %s: fdatasync p50 %s p99 %s, %.0f writes/s",
			c.Node, c.StorageClass, c.Size, roundDuration(c.SyncP50), roundDuration(c.SyncP99), c.WritesPerSecond))
	}
	return "storage calibration: " + strings.Join(parts, "; ")
}

func roundDuration(d *metav1.Duration) string {
	if d == nil {
		return "-"
	}
	return d.Duration.Round(time.Microsecond).String()
}
