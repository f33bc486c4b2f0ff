package report

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// isolationWords says what each level means for the TPC-C transactions, against Clause 3.4's
// requirement of serializable-equivalent New-Order, Payment, Delivery and Order-Status.
var isolationWords = map[benchv1.Isolation]string{
	benchv1.IsolationReadCommitted: "Read Committed, with the rows the transactions update locked explicitly (SELECT … FOR UPDATE). " +
		"This is below the serializable-equivalent behaviour TPC-C Clause 3.4 asks of New-Order, Payment, Delivery and Order-Status: " +
		"Delivery takes each district's oldest new order with FOR UPDATE SKIP LOCKED, so a Delivery skips an order another Delivery holds " +
		"instead of waiting for it, which a serializable run would not do; the figures are not comparable with a serializable engine's " +
		"without saying so",
	benchv1.IsolationRepeatableRead: "Repeatable Read: each transaction reads one snapshot, and a write to a row changed since then aborts " +
		"and is retried (the steps count the retries). It is snapshot isolation, not serializable; TPC-C Clause 3.4 asks for " +
		"serializable-equivalent New-Order, Payment, Delivery and Order-Status",
	benchv1.IsolationSerializable: "Serializable, the level TPC-C Clause 3.4 asks for: a transaction that would break serializability " +
		"aborts and is retried (the steps count the retries)",
}

// IsolationSentence says at which isolation level the run's transactions ran, in words: the level
// the result's step recorded (read back from the server), else what the spec and the engine's
// default say.
func IsolationSentence(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	level := effectiveIsolation(run.Spec.Workload, DescriptionOf(run))
	source := "asked for"
	for i, s := range run.Status.Steps {
		if s.Isolation != "" && (result.Step == nil || int32(i) == *result.Step) {
			level, source = s.Isolation, "recorded by the steps"
		}
	}
	words, ok := isolationWords[level]
	if !ok {
		return "Isolation: not recorded."
	}
	return "Isolation (" + source + "): " + words + "."
}
