// Package snapshot is the contract between a `tpcc run` client pod and the
// operator: the versioned JSON document a client serves on GET /v1/snapshot,
// its validation, the exact merge of many pods' snapshots and the figures
// derived from a merge (tpmC, efficiency, percentiles, mix, audit ratios).
//
// It depends on the standard library and hdrhistogram-go only, so the operator
// can import it without pulling in database drivers or k6.
package snapshot

import "time"

// Version is the major version of the document this package writes and reads.
// Fields may be added within a major version (readers ignore unknown fields);
// removing or changing the meaning of a field requires a new major version.
const Version = 1

// Transaction names one of the five TPC-C transaction types.
type Transaction string

// The five TPC-C transaction types, spelled as in the BenchmarkRun API.
const (
	NewOrder    Transaction = "NewOrder"
	Payment     Transaction = "Payment"
	OrderStatus Transaction = "OrderStatus"
	Delivery    Transaction = "Delivery"
	StockLevel  Transaction = "StockLevel"
)

// Transactions lists the five types in the order TPC-C reports them.
var Transactions = []Transaction{NewOrder, Payment, OrderStatus, Delivery, StockLevel}

// Valid reports whether t is one of the five TPC-C transaction types.
func (t Transaction) Valid() bool {
	for _, known := range Transactions {
		if t == known {
			return true
		}
	}
	return false
}

// Phase is where a client process is in its run.
type Phase string

const (
	PhasePaused    Phase = "paused"    // connected, terminals not started; waits for POST /v1/start
	PhaseRampUp    Phase = "rampup"    // terminals starting; nothing is measured yet
	PhaseMeasuring Phase = "measuring" // inside the measured interval
	PhaseStopping  Phase = "stopping"  // interval over or stop requested; in-flight transactions finishing
	PhaseDone      Phase = "done"      // final figures; the snapshot will not change any more
	PhaseFailed    Phase = "failed"    // the run failed; Message says why
)

// phaseOrder ranks the non-failed phases by progress, so a merge can report the
// least advanced pod's phase.
var phaseOrder = map[Phase]int{
	PhasePaused:    0,
	PhaseRampUp:    1,
	PhaseMeasuring: 2,
	PhaseStopping:  3,
	PhaseDone:      4,
}

// Valid reports whether p is a known phase.
func (p Phase) Valid() bool {
	_, ok := phaseOrder[p]
	return ok || p == PhaseFailed
}

// WaitMode says whether terminals apply TPC-C keying and think times.
type WaitMode string

const (
	WaitSpec WaitMode = "spec" // TPC-C keying + think times (Clause 5.2.5)
	WaitNone WaitMode = "none" // no waits: a saturation test, not spec-compliant
)

// Snapshot is the document a client pod serves. All counters and histograms
// are cumulative over the measured interval (zero before it starts) and are
// taken atomically together: for every type, the histogram's total count
// equals Commits + Rollbacks.
type Snapshot struct {
	Version      int                               `json:"version"`
	Identity     Identity                          `json:"identity"`
	Phase        Phase                             `json:"phase"`
	Message      string                            `json:"message,omitempty"`
	Times        Times                             `json:"times"`
	Transactions map[Transaction]TransactionCounts `json:"transactions"`
	Audit        Audit                             `json:"audit"`
	Constants    Constants                         `json:"constants"`
	Versions     Versions                          `json:"versions"`
	// Intervals is the time series (added within version 1; absent from clients that predate it).
	// A plain GET carries its bookkeeping and no items; GET ?intervalsAfter=N carries the items
	// with index > N (see interval.go and docs/snapshot-api.md).
	Intervals *Intervals `json:"intervals,omitempty"`
	// Server is what the process that samples the database's signals (--telemetry) read of the
	// server once, when it connected; absent from every other process.
	Server *ServerInfo `json:"server,omitempty"`
	// Ledger is the process's New-Order ledger per district (added within version 1; absent from
	// clients that predate it). Unlike the counters above it covers every New-Order the process's
	// terminals ran, ramp-up and stopping included: it is compared with the database read before
	// the terminals start and after they end, not with the measured interval.
	Ledger []LedgerDistrict `json:"ledger,omitempty"`
	// LedgerTotals sums Ledger over its districts. The server puts it in every reply that leaves
	// the per-district list out (a request without ledger=1), so a reader that needs only the
	// process's totals never transfers the list (added within version 1; absent from clients that
	// predate it, which always send Ledger).
	LedgerTotals *LedgerTotals `json:"ledgerTotals,omitempty"`
	// LedgerCheck is the verdict of a process started with --ledger-check, served once the
	// terminals have ended and the database was read again (added within version 1); absent
	// before that and without the flag.
	LedgerCheck *LedgerCheck `json:"ledgerCheck,omitempty"`
	// Commits is the process's record of acknowledged write commits around the marks POST
	// /v1/mark set (added within version 1): absent until the first mark. The outage a fault
	// causes is measured from it, in this process's own clock.
	Commits *CommitRecord `json:"commits,omitempty"`
}

// CommitRecord is what a process knows of its acknowledged commits of writing transactions
// (New-Order, Payment, Delivery; a New-Order's required rollback is not a commit) around fault
// marks, all in its own clock: the marks, and every stretch without such a commit that ended
// after the first mark.
type CommitRecord struct {
	// Marks are the moments POST /v1/mark recorded, in the order they were first set.
	Marks []Mark `json:"marks"`
	// Gaps are the stretches of at least MinGapSeconds between two consecutive acknowledged
	// commits that ended after the first mark, oldest first; a stretch that began before the mark
	// and ended after it is one of them.
	Gaps []CommitGap `json:"gaps"`
	// MinGapSeconds is the shortest gap recorded: shorter ones are not (the resolution of an
	// outage measured from this record). It doubles when the record would outgrow its bound.
	MinGapSeconds float64 `json:"minGapSeconds"`
	// LastCommit is the latest acknowledged commit (zero: none yet; then the gap runs from
	// TerminalsStart). A gap from it to the end of the run is still open.
	LastCommit     time.Time `json:"lastCommit,omitzero"`
	TerminalsStart time.Time `json:"terminalsStart,omitzero"`
	// Ended is when the terminals ended (zero while they run): no commit can follow it.
	Ended time.Time `json:"ended,omitzero"`
}

// Mark is one moment a fault's controller marked in a client process's clock.
type Mark struct {
	Label string    `json:"label"`
	Time  time.Time `json:"time"`
}

// CommitGap is a stretch without an acknowledged write commit: From is the last commit before
// it (or the terminals' start), To the first one after it.
type CommitGap struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// MarkTime is the time of the mark with the given label, ok false when there is none.
func (r *CommitRecord) MarkTime(label string) (time.Time, bool) {
	if r == nil {
		return time.Time{}, false
	}
	for _, m := range r.Marks {
		if m.Label == label {
			return m.Time, true
		}
	}
	return time.Time{}, false
}

// LedgerCheck is one process's ledger check over its home districts: the orders the database
// gained since the reading before the terminals started, against the acknowledged New-Orders.
type LedgerCheck struct {
	Pass      bool `json:"pass"`
	Districts int  `json:"districts"`
	// Acknowledged and Unknown New-Orders, and the growth of d_next_o_id, over every district.
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown"`
	Growth       int64 `json:"growth"`
	// Failures name the failing districts and their counts (at most 10).
	Failures []string `json:"failures,omitempty"`
	// Error says why the check could not be made (a reading failed); Pass is then false.
	Error string `json:"error,omitempty"`
}

// LedgerTotals are a process's New-Order ledger summed over its districts.
type LedgerTotals struct {
	Districts    int   `json:"districts"`
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown"`
}

// SumLedger sums districts.
func SumLedger(districts []LedgerDistrict) LedgerTotals {
	t := LedgerTotals{Districts: len(districts)}
	for _, d := range districts {
		t.Acknowledged += d.Acknowledged
		t.Unknown += d.Unknown
	}
	return t
}

// CommitsUnknown is the New-Orders of the process whose outcome is unknown: from LedgerTotals,
// or from the per-district Ledger a reply carries instead.
func (s *Snapshot) CommitsUnknown() int64 {
	if s.LedgerTotals != nil {
		return s.LedgerTotals.Unknown
	}
	return SumLedger(s.Ledger).Unknown
}

// LedgerDistrict is one district of a process's New-Order ledger.
type LedgerDistrict struct {
	WarehouseID int `json:"warehouseID"`
	DistrictID  int `json:"districtID"`
	// Acknowledged counts New-Orders whose COMMIT the database acknowledged.
	Acknowledged int64 `json:"acknowledged"`
	// Unknown counts New-Orders whose outcome is unknown: the connection broke (or the run ended)
	// while COMMIT was in flight, so the order may or may not be in the database.
	Unknown int64 `json:"unknown"`
}

// ServerInfo describes the database server a run measured.
type ServerInfo struct {
	// Settings are the server settings that differ from the server's defaults, name: value with
	// its unit (secrets never: connection strings are left out).
	Settings map[string]string `json:"settings,omitempty"`
	// SettingsError says why Settings could not be read (credentials redacted).
	SettingsError string `json:"settingsError,omitempty"`
}

// Identity says who produced a snapshot and what it drives.
type Identity struct {
	Pod      string `json:"pod"`                // client pod (or host) name
	Instance string `json:"instance,omitempty"` // BenchmarkRun name, or any label the user chooses
	Engine   string `json:"engine"`             // postgres | cockroach | ydb
	// Warehouses is the loaded warehouse count (the range remote warehouses are drawn from).
	Warehouses int `json:"warehouses"`
	// WarehouseFrom..WarehouseTo (inclusive, 1-based) are the home warehouses of this pod's terminals.
	WarehouseFrom int `json:"warehouseFrom"`
	WarehouseTo   int `json:"warehouseTo"`
	// ActiveWarehouses is the active count of the whole step, the same in every pod;
	// efficiency is computed against it.
	ActiveWarehouses int      `json:"activeWarehouses"`
	Terminals        int      `json:"terminals"` // terminals in this pod
	Wait             WaitMode `json:"wait"`
	// Isolation is the isolation level every transaction of this process runs at (ReadCommitted,
	// RepeatableRead, Serializable), read back from the server by the PostgreSQL and CockroachDB
	// executors before the terminals start; YDB reports none, so there it is the mode asked for
	// (added within version 1; absent from clients that predate it).
	Isolation string `json:"isolation,omitempty"`
	// Seed is the seed of the process's deck and terminal input streams (`tpcc run --seed`, or the
	// random one it chose): the same seed and warehouse range replay the same inputs (added within
	// version 1; absent from clients that predate it).
	Seed uint64 `json:"seed,omitempty"`
}

// Times places a snapshot in time. MeasuredSeconds is the length of the
// measured interval covered by the counters: it grows while measuring and is
// final once the phase is done.
type Times struct {
	MeasurementStart time.Time `json:"measurementStart,omitzero"`
	Updated          time.Time `json:"updated"`
	MeasuredSeconds  float64   `json:"measuredSeconds"`
}

// TransactionCounts is one transaction type's state in a snapshot.
//
// A transaction is counted once, as its final outcome, however many times it
// was retried: Commits and Rollbacks are completed business transactions
// (Rollbacks are the New-Order 1 % "Item number is not valid" rollbacks of
// Clause 2.4.2.3; zero for the other types), Errors are transactions that
// failed for good, Retries counts extra attempts inside completed or failed
// transactions. Histogram holds the response time of every completed
// transaction (Commits + Rollbacks) in microseconds, HDR V2 compressed and
// base64 encoded (see histogram.go); "" means no samples.
type TransactionCounts struct {
	Histogram string `json:"histogram"`
	Commits   int64  `json:"commits"`
	Rollbacks int64  `json:"rollbacks"`
	Errors    int64  `json:"errors"`
	Retries   int64  `json:"retries"`
}

// OrderLineCountsLen is the length of Audit.OrderLineCounts: index i counts
// New-Orders with 5+i lines (Clause 2.4.1.3: 5..15 lines).
const OrderLineCountsLen = 11

// MinOrderLines is the smallest New-Order line count (index 0 of OrderLineCounts).
const MinOrderLines = 5

// Audit holds the driver-side counters behind the statistical audit checks
// of Clause 9.2 (research/tpcc-rules.md §1.6). New-Order rollbacks are
// transactions[NewOrder].rollbacks and are not repeated here.
type Audit struct {
	// OrderLineCounts[i] counts completed New-Orders (committed or rolled back)
	// with 5+i order lines.
	OrderLineCounts [OrderLineCountsLen]int64 `json:"orderLineCounts"`
	// RemoteOrderLines counts lines of those New-Orders supplied by another warehouse.
	RemoteOrderLines int64 `json:"remoteOrderLines"`
	// RemotePayments counts completed Payments for a customer of another warehouse.
	RemotePayments int64 `json:"remotePayments"`
	// PaymentsByLastName and OrderStatusByLastName count completed transactions
	// that selected the customer by last name.
	PaymentsByLastName    int64 `json:"paymentsByLastName"`
	OrderStatusByLastName int64 `json:"orderStatusByLastName"`
	// DeliveredDistricts and SkippedDeliveryDistricts count, over completed
	// Deliveries, the districts that had an order to deliver and those that had none.
	DeliveredDistricts       int64 `json:"deliveredDistricts"`
	SkippedDeliveryDistricts int64 `json:"skippedDeliveryDistricts"`
}

// Constants are the NURand C values of the run (Clause 2.1.6). Every terminal
// of every pod must use the same values.
type Constants struct {
	CLastLoad   int `json:"cLastLoad"`   // C for C_LAST used by the load
	CLastRun    int `json:"cLastRun"`    // C for C_LAST used by the run
	CCustomerID int `json:"cCustomerID"` // C for C_ID
	CItemID     int `json:"cItemID"`     // C for OL_I_ID
}

// Versions of the software that produced a snapshot; "" when unknown.
type Versions struct {
	Client       string `json:"client"`
	K6           string `json:"k6,omitempty"`
	EngineServer string `json:"engineServer,omitempty"`
}
