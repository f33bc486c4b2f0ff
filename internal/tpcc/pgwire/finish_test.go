package pgwire

import (
	"reflect"
	"testing"
)

func TestFinishChains(t *testing.T) {
	stmts := []finishStatement{
		{"item", "pk item"}, {"stock", "pk stock"}, {"order_line", "pk order_line"}, {"customer", "pk customer"},
		{"customer", "index customer"}, {"orders", "index orders"},
		{"item", "analyze item"}, {"stock", "analyze stock"}, {"order_line", "analyze order_line"},
		{"customer", "analyze customer"}, {"orders", "analyze orders"}, {"warehouse", "analyze warehouse"},
	}
	want := [][]string{
		{"pk order_line", "analyze order_line"},
		{"pk stock", "analyze stock"},
		{"pk customer", "index customer", "analyze customer"},
		{"pk item", "analyze item"},
		{"index orders", "analyze orders"},
		{"analyze warehouse"},
	}
	if got := finishChains(stmts); !reflect.DeepEqual(got, want) {
		t.Errorf("finishChains:\n got %q\nwant %q", got, want)
	}
}
