package levels

import (
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Serializable needs no setting; each weaker level names its own.
func TestEnablingSetting(t *testing.T) {
	for l, want := range map[isolation.Level]string{
		isolation.Serializable:   "",
		isolation.ReadCommitted:  "sql.txn.read_committed_isolation.enabled",
		isolation.RepeatableRead: "sql.txn.repeatable_read_isolation.enabled",
	} {
		if got := EnablingSetting(l); got != want {
			t.Errorf("EnablingSetting(%s) = %q, want %q", l, got, want)
		}
	}
}
