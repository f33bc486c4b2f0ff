package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Parse decodes a snapshot document, rejects a major version this package
// does not know, and validates the result.
func Parse(data []byte) (*Snapshot, error) {
	var s Snapshot
	decodeErr := json.Unmarshal(data, &s)
	if decodeErr != nil {
		// A document of another major version may not fit this version's types:
		// report the version rather than the type mismatch when it can be read.
		var probe struct {
			Version *int `json:"version"`
		}
		if json.Unmarshal(data, &probe) != nil {
			return nil, fmt.Errorf("snapshot is not valid JSON: %w", decodeErr)
		}
		if probe.Version != nil && *probe.Version != Version {
			return nil, unsupportedVersion(*probe.Version)
		}
		return nil, fmt.Errorf("snapshot version %d: %w", Version, decodeErr)
	}
	if s.Version == 0 {
		return nil, errors.New("snapshot has no \"version\" field (or version 0)")
	}
	if s.Version != Version {
		return nil, unsupportedVersion(s.Version)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func unsupportedVersion(v int) error {
	return fmt.Errorf("snapshot version %d is not supported: this reader knows version %d only", v, Version)
}

// Marshal validates s, stamps the current version and encodes it.
func Marshal(s *Snapshot) ([]byte, error) {
	c := *s
	c.Version = Version
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(&c)
}

// Validate checks what a reader relies on: known names, consistent ranges,
// non-negative counters. It does not decode histograms (Merge does, and checks
// their counts against the counters).
func (s *Snapshot) Validate() error {
	if s.Version != Version {
		return fmt.Errorf("version: %d is not supported, want %d", s.Version, Version)
	}
	id := s.Identity
	pod := id.Pod
	if pod == "" {
		return errors.New("identity.pod: must not be empty")
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("snapshot of pod %q: "+format, append([]any{pod}, args...)...)
	}
	if id.Engine == "" {
		return fail("identity.engine: must not be empty")
	}
	if id.Warehouses < 1 {
		return fail("identity.warehouses: %d, must be >= 1", id.Warehouses)
	}
	if id.WarehouseFrom < 1 || id.WarehouseTo < id.WarehouseFrom || id.WarehouseTo > id.Warehouses {
		return fail("identity.warehouseFrom..warehouseTo: %d..%d is not a range inside 1..%d", id.WarehouseFrom, id.WarehouseTo, id.Warehouses)
	}
	if id.ActiveWarehouses < 1 || id.ActiveWarehouses > id.Warehouses {
		return fail("identity.activeWarehouses: %d is outside 1..%d", id.ActiveWarehouses, id.Warehouses)
	}
	if id.Terminals < 0 {
		return fail("identity.terminals: %d, must be >= 0", id.Terminals)
	}
	if id.Wait != WaitSpec && id.Wait != WaitNone {
		return fail("identity.wait: %q, want %q or %q", id.Wait, WaitSpec, WaitNone)
	}
	if !s.Phase.Valid() {
		return fail("phase: unknown phase %q", s.Phase)
	}
	if s.Times.MeasuredSeconds < 0 {
		return fail("times.measuredSeconds: %g, must be >= 0", s.Times.MeasuredSeconds)
	}
	for t, c := range s.Transactions {
		if !t.Valid() {
			return fail("transactions: unknown transaction type %q", t)
		}
		if c.Commits < 0 || c.Rollbacks < 0 || c.Errors < 0 || c.Retries < 0 {
			return fail("transactions.%s: counters must be >= 0 (commits %d, rollbacks %d, errors %d, retries %d)",
				t, c.Commits, c.Rollbacks, c.Errors, c.Retries)
		}
		if t != NewOrder && c.Rollbacks != 0 {
			return fail("transactions.%s.rollbacks: %d, only NewOrder has business rollbacks", t, c.Rollbacks)
		}
	}
	a := s.Audit
	for i, n := range a.OrderLineCounts {
		if n < 0 {
			return fail("audit.orderLineCounts[%d]: %d, must be >= 0", i, n)
		}
	}
	for name, n := range map[string]int64{
		"remoteOrderLines": a.RemoteOrderLines, "remotePayments": a.RemotePayments,
		"paymentsByLastName": a.PaymentsByLastName, "orderStatusByLastName": a.OrderStatusByLastName,
		"deliveredDistricts": a.DeliveredDistricts, "skippedDeliveryDistricts": a.SkippedDeliveryDistricts,
	} {
		if n < 0 {
			return fail("audit.%s: %d, must be >= 0", name, n)
		}
	}
	if s.Intervals != nil {
		if err := s.Intervals.Validate(); err != nil {
			return fail("%v", err)
		}
	}
	return nil
}
