// Package chunked keeps a body that may outgrow one ConfigMap (the API server's limit is 1 MiB,
// metadata included) in a ConfigMap and, past MaxBytes, in parts beside it: the first ConfigMap
// holds the first MaxBytes under its key and, in data key "parts", how many ConfigMaps the body
// spans; part k (k >= 1) is ConfigMap PartName(name, k) under the same key. The operator writes a
// step's time series this way and the kubectl plugin reads it back. It is pure.
package chunked

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// MaxBytes is the most of a body one ConfigMap holds.
const MaxBytes = 900 << 10

// PartsKey is the data key of the first ConfigMap giving the number of ConfigMaps.
const PartsKey = "parts"

// PartName names part k (k >= 1) of the body kept under ConfigMap name.
func PartName(name string, k int) string { return fmt.Sprintf("%s-part-%d", name, k) }

// Split cuts body into the pieces the ConfigMaps hold, at least one.
func Split(body []byte, maxBytes int) [][]byte {
	parts := max(1, (len(body)+maxBytes-1)/maxBytes)
	out := make([][]byte, parts)
	for k := range parts {
		out[k] = body[k*maxBytes : min(len(body), (k+1)*maxBytes)]
	}
	return out
}

// Join reads the body kept under key from the first ConfigMap and its parts, which get reads by
// name. A ConfigMap without PartsKey holds the whole body (as written before parts existed).
func Join(first *corev1.ConfigMap, key string, get func(name string) (*corev1.ConfigMap, error)) ([]byte, error) {
	body := append([]byte(nil), first.BinaryData[key]...)
	parts := 1
	if v, ok := first.Data[PartsKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("ConfigMap %s: %s %q is not a count of parts", first.Name, PartsKey, v)
		}
		parts = n
	}
	for k := 1; k < parts; k++ {
		part, err := get(PartName(first.Name, k))
		if err != nil {
			return nil, fmt.Errorf("part %d of %d of ConfigMap %s: %w", k, parts, first.Name, err)
		}
		if part == nil {
			return nil, fmt.Errorf("part %d of %d of ConfigMap %s is missing", k, parts, first.Name)
		}
		body = append(body, part.BinaryData[key]...)
	}
	return body, nil
}
