package chunked

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSplitAndJoin(t *testing.T) {
	for _, size := range []int{0, 1, 9, 10, 11, 35} {
		body := bytes.Repeat([]byte("abcdefg"), size)[:size]
		pieces := Split(body, 10)
		if want := max(1, (size+9)/10); len(pieces) != want {
			t.Fatalf("size %d: %d pieces, want %d", size, len(pieces), want)
		}
		store := map[string]*corev1.ConfigMap{}
		for k := 1; k < len(pieces); k++ {
			store[PartName("s", k)] = &corev1.ConfigMap{BinaryData: map[string][]byte{"b": pieces[k]}}
		}
		first := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string]string{PartsKey: strconv.Itoa(len(pieces))},
			BinaryData: map[string][]byte{"b": pieces[0]}}
		got, err := Join(first, "b", func(name string) (*corev1.ConfigMap, error) { return store[name], nil })
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("size %d: %q %v", size, got, err)
		}
	}
}

func TestJoinFailures(t *testing.T) {
	first := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string]string{PartsKey: "3"}, BinaryData: map[string][]byte{"b": []byte("x")}}
	if _, err := Join(first, "b", func(string) (*corev1.ConfigMap, error) { return nil, nil }); err == nil || !strings.Contains(err.Error(), "part 1 of 3 of ConfigMap s is missing") {
		t.Errorf("missing part: %v", err)
	}
	if _, err := Join(first, "b", func(string) (*corev1.ConfigMap, error) { return nil, errors.New("forbidden") }); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("read error: %v", err)
	}
	first.Data[PartsKey] = "zero"
	if _, err := Join(first, "b", nil); err == nil || !strings.Contains(err.Error(), `parts "zero"`) {
		t.Errorf("bad count: %v", err)
	}
	legacy := &corev1.ConfigMap{BinaryData: map[string][]byte{"b": []byte("whole")}}
	if got, err := Join(legacy, "b", nil); err != nil || string(got) != "whole" {
		t.Errorf("a ConfigMap without parts: %q %v", got, err)
	}
}
