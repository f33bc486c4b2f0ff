package ydb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// ydbExecutor runs the transactions over YDB's query service. Read-write transactions are
// SERIALIZABLE (YDB's default, optimistic locking): a conflict aborts the transaction at commit
// and the SDK's retryer runs it again, which the executor counts. Each transaction reads in its
// first query and writes in its last, committing with it, so a transaction costs two round trips
// (three for a Payment by last name).
type ydbExecutor struct {
	db        *ydb.Driver
	retry     tpcc.RetryPolicy
	readWrite query.TransactionSettings // the read-write transactions' mode, by the run's isolation
	isolation isolation.Level
}

func newYDBExecutor(ctx context.Context, cfg tpcc.ExecutorConfig) (*ydbExecutor, error) {
	readWrite, err := ydbReadWriteSettings(cfg.Isolation)
	if err != nil {
		return nil, err
	}
	db, err := openYDB(ctx, cfg.URL, ydb.WithSessionPoolSizeLimit(cfg.MaxConns))
	if err != nil {
		return nil, err
	}
	return &ydbExecutor{db: db, retry: cfg.Retry, readWrite: readWrite, isolation: cfg.Isolation}, nil
}

// Isolation is the level the executor's read-write transactions run at. YDB has no statement
// that reports a transaction's mode: this is the mode the executor asks for, and a server that
// does not offer it fails the first transaction.
func (e *ydbExecutor) Isolation() isolation.Level { return e.isolation }

// ydbReadWriteSettings is YDB's transaction mode for the read-write transactions at level l:
// SerializableReadWrite (YDB's default), or SnapshotReadWrite for RepeatableRead — snapshot
// isolation, as PostgreSQL's REPEATABLE READ: one snapshot per transaction, a write to a row
// another transaction changed since the snapshot aborts at commit (YDB 25.1 and later). YDB has
// no READ COMMITTED for read-write transactions. Order-Status and Stock-Level read one
// consistent snapshot (SnapshotReadOnly) at every level.
func ydbReadWriteSettings(l isolation.Level) (query.TransactionSettings, error) {
	switch l {
	case isolation.Serializable, "":
		return ydbSerializable, nil
	case isolation.RepeatableRead:
		return ydbSnapshotReadWrite, nil
	}
	return nil, fmt.Errorf("executor: isolation %s: %s", l, Driver.Capabilities().SupportsIsolation(l))
}

func (e *ydbExecutor) Close() { _ = e.db.Close(context.Background()) }

// errUnusedItem ends a New-Order whose item does not exist: the SDK rolls the transaction back.
var errUnusedItem = errors.New("unused item")

// inTx runs op in a transaction with settings, through the SDK's retryer, bounded by the
// executor's policy. It returns how many times op was run again.
func (e *ydbExecutor) inTx(ctx context.Context, settings query.TransactionSettings, op func(context.Context, query.TxActor) error) (int, error) {
	attempts := 0
	var last error
	err := e.db.Query().DoTx(ctx, func(ctx context.Context, tx query.TxActor) error {
		attempts++
		if attempts > e.retry.MaxAttempts {
			return &tpcc.RetriesExhaustedError{Attempts: attempts - 1, Last: last}
		}
		last = op(ctx, tx)
		return last
	}, query.WithTxSettings(settings), query.WithLazyTx(true))
	return max(attempts-1, 0), err
}

var (
	ydbSerializable      = query.TxSettings(query.WithSerializableReadWrite())
	ydbSnapshotReadWrite = query.TxSettings(query.WithSnapshotReadWrite())
	ydbSnapshotRead      = query.TxSettings(query.WithSnapshotReadOnly())
)

// readResultSets reads every row of every result set of q, calling row with the index of the
// set's statement in q (the server's index, so an empty set shifts nothing).
func readResultSets(ctx context.Context, tx query.TxActor, q ydbQuery, row func(set int, r query.Row) error) error {
	res, err := tx.Query(ctx, q.text(), q.options())
	if err != nil {
		return err
	}
	defer func() { _ = res.Close(ctx) }()
	for {
		rs, err := res.NextResultSet(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for {
			r, err := rs.NextRow(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if err := row(rs.Index(), r); err != nil {
				return err
			}
		}
	}
}

func execAndCommit(ctx context.Context, tx query.TxActor, q ydbQuery) error {
	return tx.Exec(ctx, q.text(), q.options(), query.WithCommit())
}

func (e *ydbExecutor) NewOrder(ctx context.Context, in *tpcc.NewOrderInput) (tpcc.NewOrderResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.NewOrderResult{}, err
	}
	res := tpcc.NewOrderResult{Lines: len(in.Lines), RemoteLines: in.RemoteLines()}
	retries, err := e.inTx(ctx, e.readWrite, func(ctx context.Context, tx query.TxActor) error {
		var (
			districtTax, warehouseTax, discount float64
			nextOrderID                         int32
			last, credit                        string
			found                               bool
			prices                              = map[int]float64{}
			itemData                            = map[int]string{}
			stock                               = map[[2]int]*ydbStockRow{}
		)
		err := readResultSets(ctx, tx, ydbNewOrderRead(in), func(set int, r query.Row) error {
			switch set {
			case 0:
				found = true
				return r.Scan(&districtTax, &nextOrderID)
			case 1:
				return r.Scan(&warehouseTax)
			case 2:
				return r.Scan(&discount, &last, &credit)
			case 3:
				var id int32
				var price float64
				var data string
				if err := r.Scan(&id, &price, &data); err != nil {
					return err
				}
				prices[int(id)], itemData[int(id)] = price, data
			case 4:
				var w, i, quantity, ytd, orders, remote int32
				var s ydbStockRow
				if err := r.Scan(&w, &i, &quantity, &ytd, &orders, &remote, &s.data, &s.distInfo); err != nil {
					return err
				}
				s.Quantity, s.YTD, s.OrderCount, s.RemoteCount = int(quantity), int(ytd), int(orders), int(remote)
				stock[[2]int{int(w), int(i)}] = &s
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("district %d/%d not found", in.WarehouseID, in.DistrictID)
		}
		o, err := applyNewOrderLines(in, prices, itemData, stock)
		if err != nil {
			return err
		}
		if o.unused {
			// Clause 2.4.2.3: the order's district and the stock of its items before the unused one
			// are written, as the PostgreSQL-wire path's first round trip writes them, and the
			// transaction rolls back.
			abort := ydbNewOrderAbortWrite(in, int(nextOrderID), o.applied)
			if err := tx.Exec(ctx, abort.text(), abort.options()); err != nil {
				return err
			}
			return errUnusedItem
		}
		if err := execAndCommit(ctx, tx, ydbNewOrderWrite(in, int(nextOrderID), o.applied, o.lines)); err != nil {
			return err
		}
		res.OrderID, res.BrandLines = int(nextOrderID), o.brand
		res.TotalAmount = tpcc.OrderTotal(o.totalCents, discount, warehouseTax, districtTax)
		return nil
	})
	res.Retries = retries
	if errors.Is(err, errUnusedItem) {
		res.RolledBack, res.OrderID = true, 0
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("new-order: %w", err)
	}
	return res, nil
}

// ydbCustomerID resolves a selector to a C_ID, reading the by-name list in tx.
func ydbCustomerID(ctx context.Context, tx query.TxActor, w, d int, sel tpcc.CustomerSelector) (int, error) {
	if !sel.ByLastName {
		return sel.ID, nil
	}
	var ids []int
	err := readResultSets(ctx, tx, ydbCustomersByLastName(w, d, sel.LastName), func(_ int, r query.Row) error {
		var id int32
		if err := r.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, int(id))
		return nil
	})
	if err != nil {
		return 0, err
	}
	id, ok := tpcc.MiddleCustomer(ids)
	if !ok {
		return 0, tpcc.CustomerNotFound(w, d, sel)
	}
	return id, nil
}

func (e *ydbExecutor) Payment(ctx context.Context, in *tpcc.PaymentInput) (tpcc.PaymentResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.PaymentResult{}, err
	}
	res := tpcc.PaymentResult{RemoteCustomer: in.RemoteCustomer(), ByLastName: in.Customer.ByLastName}
	historyKey := rand.Uint64()
	retries, err := e.inTx(ctx, e.readWrite, func(ctx context.Context, tx query.TxActor) error {
		customerID, err := ydbCustomerID(ctx, tx, in.CustomerWarehouseID, in.CustomerDistrictID, in.Customer)
		if err != nil {
			return err
		}
		var warehouseName, districtName, credit, data string
		var customers int
		err = readResultSets(ctx, tx, ydbPaymentRead(in, customerID), func(set int, r query.Row) error {
			switch set {
			case 0:
				return r.ScanNamed(query.Named("w_name", &warehouseName))
			case 1:
				return r.ScanNamed(query.Named("d_name", &districtName))
			case 2:
				customers++
				return r.ScanNamed(query.Named("c_credit", &credit), query.Named("c_data", &data))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if customers == 0 {
			return tpcc.CustomerNotFound(in.CustomerWarehouseID, in.CustomerDistrictID, tpcc.CustomerSelector{ID: customerID})
		}
		var newData *string
		if credit == tpcc.BadCredit {
			d := tpcc.BadCreditData(in, customerID, data)
			newData = &d
		}
		if err := execAndCommit(ctx, tx, ydbPaymentWrite(in, customerID, newData, historyKey, tpcc.HistoryData(warehouseName, districtName))); err != nil {
			return err
		}
		res.CustomerID, res.BadCredit = customerID, credit == tpcc.BadCredit
		return nil
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("payment: %w", err)
	}
	return res, nil
}

func (e *ydbExecutor) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput) (tpcc.OrderStatusResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.OrderStatusResult{}, err
	}
	res := tpcc.OrderStatusResult{ByLastName: in.Customer.ByLastName}
	retries, err := e.inTx(ctx, ydbSnapshotRead, func(ctx context.Context, tx query.TxActor) error {
		res.CustomerID, res.OrderID, res.Lines = 0, 0, 0
		customerID, err := ydbCustomerID(ctx, tx, in.WarehouseID, in.DistrictID, in.Customer)
		if err != nil {
			return err
		}
		err = readResultSets(ctx, tx, ydbOrderStatus(in.WarehouseID, in.DistrictID, customerID), func(set int, r query.Row) error {
			switch set {
			case 0:
				res.CustomerID = customerID
			case 1:
				var orderID int32
				if err := r.ScanNamed(query.Named("o_id", &orderID)); err != nil {
					return err
				}
				res.OrderID = int(orderID)
			case 2:
				res.Lines++
			}
			return nil
		})
		if err != nil {
			return err
		}
		if res.CustomerID == 0 {
			return tpcc.CustomerNotFound(in.WarehouseID, in.DistrictID, in.Customer)
		}
		return nil
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("order-status: %w", err)
	}
	return res, nil
}

func (e *ydbExecutor) Delivery(ctx context.Context, in *tpcc.DeliveryInput) (tpcc.DeliveryResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.DeliveryResult{}, err
	}
	var res tpcc.DeliveryResult
	retries, err := e.inTx(ctx, e.readWrite, func(ctx context.Context, tx query.TxActor) error {
		var keys []ydbDeliveryKey
		err := readResultSets(ctx, tx, ydbDeliveryOldest(in.WarehouseID), func(_ int, r query.Row) error {
			var districtID, orderID int32
			if err := r.Scan(&districtID, &orderID); err != nil {
				return err
			}
			keys = append(keys, ydbDeliveryKey{districtID: int(districtID), orderID: int(orderID)})
			return nil
		})
		if err != nil {
			return err
		}
		out := tpcc.DeliveryOutcome(len(keys))
		res.Delivered, res.Skipped = out.Delivered, out.Skipped
		if len(keys) == 0 {
			return nil // nothing to write; DoTx commits the empty transaction
		}
		return execAndCommit(ctx, tx, ydbDeliveryWrite(in.WarehouseID, in.CarrierID, keys))
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("delivery: %w", err)
	}
	return res, nil
}

func (e *ydbExecutor) StockLevel(ctx context.Context, in *tpcc.StockLevelInput) (tpcc.StockLevelResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.StockLevelResult{}, err
	}
	var res tpcc.StockLevelResult
	retries, err := e.inTx(ctx, ydbSnapshotRead, func(ctx context.Context, tx query.TxActor) error {
		return readResultSets(ctx, tx, ydbStockLevel(in), func(_ int, r query.Row) error {
			var n uint64
			if err := r.Scan(&n); err != nil {
				return err
			}
			res.LowStock = int(n)
			return nil
		})
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("stock-level: %w", err)
	}
	return res, nil
}

// newOrderLines is New-Order's lines applied to the stock rows read: the order lines, the stock
// rows changed, and whether an unused item ended the order (the lines before it are applied).
type newOrderLines struct {
	lines      []ydbNewOrderLine
	applied    map[[2]int]*ydbStockRow
	brand      int
	totalCents int64
	unused     bool
}

// applyNewOrderLines applies in's lines in order to the stock rows read, until an item that does
// not exist (the 1 % rollback's unused item, always the last line).
func applyNewOrderLines(in *tpcc.NewOrderInput, prices map[int]float64, itemData map[int]string, stock map[[2]int]*ydbStockRow) (newOrderLines, error) {
	o := newOrderLines{applied: map[[2]int]*ydbStockRow{}}
	for i, l := range in.Lines {
		price, ok := prices[l.ItemID]
		if !ok {
			o.unused = true
			return o, nil
		}
		key := [2]int{l.SupplyWarehouseID, l.ItemID}
		s := stock[key]
		if s == nil {
			return o, fmt.Errorf("stock %d/%d not found", l.SupplyWarehouseID, l.ItemID)
		}
		s.ApplyLine(l.Quantity, l.SupplyWarehouseID != in.WarehouseID)
		o.applied[key] = s
		if tpcc.IsBrandGeneric(itemData[l.ItemID], s.data) {
			o.brand++
		}
		amount := tpcc.LineAmountCents(l.Quantity, int64(math.Round(price*100)))
		o.totalCents += amount
		o.lines = append(o.lines, ydbNewOrderLine{number: i + 1, itemID: l.ItemID, supplyWarehouseID: l.SupplyWarehouseID,
			quantity: l.Quantity, amountCents: amount, distInfo: s.distInfo})
	}
	return o, nil
}
