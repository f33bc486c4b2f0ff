package pgwire

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// pgwireExecutor runs the transactions over pgx for PostgreSQL and CockroachDB. Each read-write
// transaction is one pipelined batch (BEGIN … COMMIT in one round trip) except New-Order, which
// needs two: the client must see whether every item exists before it commits or rolls back.
// Statements are prepared once per connection by pgx's statement cache, except through a
// transaction-mode pooler (execMode).
type pgwireExecutor struct {
	pool      *pgxpool.Pool
	sql       pgwireStatements
	retry     tpcc.RetryPolicy
	isolation isolation.Level
}

// NewExecutor connects the executor's pool (cfg validated by the core's NewExecutor) and checks
// that the server runs the isolation level asked for.
func (f *Flavour) NewExecutor(ctx context.Context, cfg tpcc.ExecutorConfig) (tpcc.Executor, error) {
	statements, err := newPgwireStatements(f, cfg.Isolation)
	if err != nil {
		return nil, err
	}
	poolCfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("executor: parse URL: %w", err)
	}
	poolCfg.MaxConns = int32(cfg.MaxConns)
	poolCfg.ConnConfig.DefaultQueryExecMode = execMode(cfg.Pooler)
	// Order-Status and Stock-Level are single statements in implicit transactions: they run at
	// the session's default level, set to the run's on every connection. Through a
	// transaction-mode pooler a SET would stay on whichever server connection ran it: the
	// server's own default must be the run's level instead (Verify checks it).
	if cfg.Pooler != tpcc.PoolerTransaction {
		setDefault := SetDefault(cfg.Isolation)
		poolCfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, setDefault)
			return err
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("executor: connect to %s: %w", f.name, err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("executor: connect to %s: %w", f.name, err)
	}
	err = Verify(ctx, conn.Conn(), cfg.Isolation, f.isolationHint, cfg.Pooler == tpcc.PoolerTransaction)
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("executor: %w", err)
	}
	return &pgwireExecutor{pool: pool, sql: statements, retry: cfg.Retry, isolation: cfg.Isolation}, nil
}

// Isolation is the level the executor's transactions run at, read back from the server.
func (e *pgwireExecutor) Isolation() isolation.Level { return e.isolation }

func (e *pgwireExecutor) Close() { e.pool.Close() }

// run runs fn on one pooled connection as one attempt of a transaction, with retries of
// serialization failures and deadlocks. When fn fails inside a transaction it is rolled back; a
// connection that cannot be rolled back is dropped by the pool on release.
func (e *pgwireExecutor) run(ctx context.Context, fn func(ctx context.Context, conn *pgx.Conn) error) (retries int, err error) {
	return e.retry.Do(ctx, isRetryableOrReconnect, func(ctx context.Context) error {
		conn, err := e.pool.Acquire(ctx)
		if err != nil {
			// Nothing was sent: during a failover the pool cannot reach a read-write server
			// for a while; the attempt is retried with backoff like a serialization failure.
			return classifyBeforeCommit(ctx, err)
		}
		defer conn.Release()
		err = fn(ctx, conn.Conn())
		if err != nil && ctx.Err() == nil && pgconn.SafeToRetry(err) {
			var unknown *tpcc.CommitUnknownError
			if !errors.As(err, &unknown) {
				err = &connectionLostError{err: err}
			}
		}
		if err != nil && conn.Conn().PgConn().TxStatus() != 'I' && !conn.Conn().IsClosed() {
			if _, rbErr := conn.Exec(ctx, "ROLLBACK"); rbErr != nil {
				return errors.Join(err, fmt.Errorf("rollback: %w", rbErr))
			}
		}
		return err
	})
}

// sendBatch sends b and hands its results to read; the batch is closed (and its first error
// returned) whatever read does.
func sendBatch(ctx context.Context, conn *pgx.Conn, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	br := conn.SendBatch(ctx, b)
	err := read(br)
	return errors.Join(err, br.Close())
}

// cents is an exact money amount for a numeric parameter.
func cents(c int64) pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(c), Exp: -2, Valid: true}
}

// stockLockOrder returns the indexes of lines in the order their stock rows are updated: by
// supply warehouse, then item. Every New-Order locking stock in this one order keeps two of
// them from waiting on each other (a deadlock costs a second of deadlock_timeout, then a retry).
func stockLockOrder(lines []tpcc.NewOrderLine) []int {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := lines[a].SupplyWarehouseID - lines[b].SupplyWarehouseID; c != 0 {
			return c
		}
		return lines[a].ItemID - lines[b].ItemID
	})
	return order
}

type orderedItem struct {
	priceCents int64
	data       string
}

func (e *pgwireExecutor) NewOrder(ctx context.Context, in *tpcc.NewOrderInput) (tpcc.NewOrderResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.NewOrderResult{}, err
	}
	var res tpcc.NewOrderResult
	retries, err := e.run(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		var err error
		res, err = e.newOrderAttempt(ctx, conn, in)
		return err
	})
	res.Retries = retries
	if err != nil {
		var unknown *tpcc.CommitUnknownError
		res.CommitUnknown = errors.As(err, &unknown)
		return res, fmt.Errorf("new-order: %w", err)
	}
	return res, nil
}

// newOrderRead is what New-Order's first round trip read: the district, warehouse and customer
// rows, the items that exist, and the stock rows it updated.
type newOrderRead struct {
	districtTax, warehouseTax, discount float64
	orderID                             int
	customerLast, customerCredit        string
	items                               map[int]orderedItem
	distInfo                            []string
	noStock                             []int // lines whose stock row does not exist
	brandLines                          int
}

func (e *pgwireExecutor) newOrderAttempt(ctx context.Context, conn *pgx.Conn, in *tpcc.NewOrderInput) (tpcc.NewOrderResult, error) {
	res := tpcc.NewOrderResult{Lines: len(in.Lines), RemoteLines: in.RemoteLines()}
	rd, err := e.newOrderFirstTrip(ctx, conn, in)
	if err != nil {
		return res, classifyBeforeCommit(ctx, err)
	}

	for _, l := range in.Lines {
		if _, ok := rd.items[l.ItemID]; !ok {
			// Clause 2.4.2.3: an unused item rolls the transaction back; the terminal counts it.
			if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
				return res, fmt.Errorf("rollback after unused item %d: %w", l.ItemID, err)
			}
			res.RolledBack = true
			return res, nil
		}
	}

	if len(rd.noStock) > 0 {
		l := in.Lines[rd.noStock[0]]
		return res, fmt.Errorf("stock %d/%d not found", l.SupplyWarehouseID, l.ItemID)
	}

	totalCents, err := e.newOrderSecondTrip(ctx, conn, in, rd)
	if err != nil {
		// The batch carries COMMIT: a connection that broke (or a context that ended) while it
		// was in flight leaves the order's fate unknown; a server error means it rolled back.
		return res, classifyCommit(err)
	}
	res.OrderID = rd.orderID
	res.BrandLines = rd.brandLines
	res.TotalAmount = tpcc.OrderTotal(totalCents, rd.discount, rd.warehouseTax, rd.districtTax)
	return res, nil
}

// newOrderFirstTrip sends everything up to the item check, inside the transaction: the stock
// rows are updated in stockLockOrder.
func (e *pgwireExecutor) newOrderFirstTrip(ctx context.Context, conn *pgx.Conn, in *tpcc.NewOrderInput) (*newOrderRead, error) {
	itemIDs := make([]int32, len(in.Lines))
	for i, l := range in.Lines {
		itemIDs[i] = int32(l.ItemID)
	}
	lockOrder := stockLockOrder(in.Lines)
	oneStatement := distinctStock(in.Lines, lockOrder)
	b := &pgx.Batch{}
	b.Queue(e.sql.begin)
	b.Queue(e.sql.newOrderDistrict, in.WarehouseID, in.DistrictID)
	b.Queue(e.sql.newOrderWarehouse, in.WarehouseID)
	b.Queue(e.sql.newOrderCustomer, in.WarehouseID, in.DistrictID, in.CustomerID)
	b.Queue(e.sql.newOrderItems, itemIDs)
	if oneStatement {
		n := len(in.Lines)
		supplies, items, quantities, remotes := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		for i, l := range in.Lines {
			supplies[i], items[i], quantities[i] = int32(l.SupplyWarehouseID), int32(l.ItemID), int32(l.Quantity)
			if l.SupplyWarehouseID != in.WarehouseID {
				remotes[i] = 1
			}
		}
		b.Queue(e.sql.newOrderStocks, supplies, items, quantities, remotes, in.DistrictID)
	} else {
		for _, i := range lockOrder {
			l := in.Lines[i]
			remote := 0
			if l.SupplyWarehouseID != in.WarehouseID {
				remote = 1
			}
			b.Queue(e.sql.newOrderStock, l.SupplyWarehouseID, l.ItemID, l.Quantity, remote, in.DistrictID)
		}
	}
	rd := &newOrderRead{items: make(map[int]orderedItem, len(in.Lines)), distInfo: make([]string, len(in.Lines))}
	err := sendBatch(ctx, conn, b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&rd.districtTax, &rd.orderID); err != nil {
			return fmt.Errorf("district %d/%d: %w", in.WarehouseID, in.DistrictID, err)
		}
		if err := br.QueryRow().Scan(&rd.warehouseTax); err != nil {
			return fmt.Errorf("warehouse %d: %w", in.WarehouseID, err)
		}
		if err := br.QueryRow().Scan(&rd.discount, &rd.customerLast, &rd.customerCredit); err != nil {
			return fmt.Errorf("customer %d/%d/%d: %w", in.WarehouseID, in.DistrictID, in.CustomerID, err)
		}
		if err := readItems(br, rd.items); err != nil {
			return err
		}
		if oneStatement {
			return rd.readStocks(br, in)
		}
		return rd.readStock(br, in, lockOrder)
	})
	return rd, err
}

// distinctStock says whether no two lines update the same stock row (lockOrder sorts them by
// supply warehouse and item). Then one statement updates every line's stock row, locking them
// in that order (newOrderStocks); two lines of one row are two updates of it, one statement each.
func distinctStock(lines []tpcc.NewOrderLine, lockOrder []int) bool {
	for k := 1; k < len(lockOrder); k++ {
		a, b := lines[lockOrder[k-1]], lines[lockOrder[k]]
		if a.SupplyWarehouseID == b.SupplyWarehouseID && a.ItemID == b.ItemID {
			return false
		}
	}
	return true
}

// readItems reads the rows of the items that exist.
func readItems(br pgx.BatchResults, items map[int]orderedItem) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int
		var it orderedItem
		var name string
		if err := rows.Scan(&id, &it.priceCents, &name, &it.data); err != nil {
			rows.Close()
			return err
		}
		items[id] = it
	}
	return rows.Err()
}

// readStock reads the updated stock rows, in lockOrder, and counts the brand-generic lines.
func (rd *newOrderRead) readStock(br pgx.BatchResults, in *tpcc.NewOrderInput, lockOrder []int) error {
	for _, i := range lockOrder {
		var quantity int
		var stockData string
		err := br.QueryRow().Scan(&quantity, &stockData, &rd.distInfo[i])
		if errors.Is(err, pgx.ErrNoRows) {
			// The unused item has no stock row (the item check rolls back); any other item
			// without one is a data error, reported after that check.
			rd.noStock = append(rd.noStock, i)
			continue
		}
		if err != nil {
			return fmt.Errorf("stock %d/%d: %w", in.Lines[i].SupplyWarehouseID, in.Lines[i].ItemID, err)
		}
		if it, ok := rd.items[in.Lines[i].ItemID]; ok && tpcc.IsBrandGeneric(it.data, stockData) {
			rd.brandLines++
		}
	}
	return nil
}

// readStocks reads the rows newOrderStocks updated, one per line whose stock row exists (the
// lines' stock rows are distinct), and counts the brand-generic lines.
func (rd *newOrderRead) readStocks(br pgx.BatchResults, in *tpcc.NewOrderInput) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	updated := make([]bool, len(in.Lines))
	for rows.Next() {
		var w, item, quantity int
		var stockData, distInfo string
		if err := rows.Scan(&w, &item, &quantity, &stockData, &distInfo); err != nil {
			rows.Close()
			return err
		}
		for i, l := range in.Lines {
			if l.SupplyWarehouseID != w || l.ItemID != item {
				continue
			}
			updated[i], rd.distInfo[i] = true, distInfo
			if it, ok := rd.items[item]; ok && tpcc.IsBrandGeneric(it.data, stockData) {
				rd.brandLines++
			}
			break
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stock: %w", err)
	}
	for i, ok := range updated {
		if !ok {
			// As in readStock: the unused item has no stock row; any other is a data error.
			rd.noStock = append(rd.noStock, i)
		}
	}
	return nil
}

// newOrderSecondTrip sends the order, its lines and COMMIT, and returns Σ OL_AMOUNT in cents.
func (e *pgwireExecutor) newOrderSecondTrip(ctx context.Context, conn *pgx.Conn, in *tpcc.NewOrderInput, rd *newOrderRead) (int64, error) {
	n := len(in.Lines)
	numbers, lineItems, supplies, quantities := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	amounts := make([]int64, n)
	var totalCents int64
	for i, l := range in.Lines {
		amount := tpcc.LineAmountCents(l.Quantity, rd.items[l.ItemID].priceCents)
		totalCents += amount
		numbers[i], lineItems[i], supplies[i], quantities[i] = int32(i+1), int32(l.ItemID), int32(l.SupplyWarehouseID), int32(l.Quantity)
		amounts[i] = amount
	}
	b := &pgx.Batch{}
	b.Queue(e.sql.newOrderOrder, rd.orderID, in.DistrictID, in.WarehouseID, in.CustomerID, n, in.AllLocalFlag())
	b.Queue(e.sql.newOrderNewOrder, rd.orderID, in.DistrictID, in.WarehouseID)
	b.Queue(e.sql.newOrderLines, rd.orderID, in.DistrictID, in.WarehouseID, numbers, lineItems, supplies, quantities, amounts, rd.distInfo)
	b.Queue("COMMIT")
	err := sendBatch(ctx, conn, b, func(br pgx.BatchResults) error {
		for range b.Len() {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	return totalCents, err
}

func (e *pgwireExecutor) Payment(ctx context.Context, in *tpcc.PaymentInput) (tpcc.PaymentResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.PaymentResult{}, err
	}
	res := tpcc.PaymentResult{RemoteCustomer: in.RemoteCustomer(), ByLastName: in.Customer.ByLastName}
	amount := cents(in.AmountCents)
	customerSQL, customerArg := e.sql.paymentCustomerByID, any(in.Customer.ID)
	if in.Customer.ByLastName {
		customerSQL, customerArg = e.sql.paymentCustomerByName, in.Customer.LastName
	}
	retries, err := e.run(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		b := &pgx.Batch{}
		b.Queue(e.sql.begin)
		b.Queue(e.sql.paymentWarehouse, in.WarehouseID, amount)
		b.Queue(e.sql.paymentDistrict, in.WarehouseID, in.DistrictID, amount)
		b.Queue(customerSQL, in.WarehouseID, in.DistrictID, in.CustomerWarehouseID, in.CustomerDistrictID, amount, customerArg)
		b.Queue("COMMIT")
		return sendBatch(ctx, conn, b, func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				return err
			}
			var name, street1, street2, city, state, zip string
			if err := br.QueryRow().Scan(&name, &street1, &street2, &city, &state, &zip); err != nil {
				return fmt.Errorf("warehouse %d: %w", in.WarehouseID, err)
			}
			if err := br.QueryRow().Scan(&name, &street1, &street2, &city, &state, &zip); err != nil {
				return fmt.Errorf("district %d/%d: %w", in.WarehouseID, in.DistrictID, err)
			}
			var c paidCustomer
			if err := br.QueryRow().Scan(c.fields()...); err != nil {
				return customerError(err, in.CustomerWarehouseID, in.CustomerDistrictID, in.Customer)
			}
			res.CustomerID, res.BadCredit = c.id, c.credit == tpcc.BadCredit
			_, err := br.Exec()
			return err
		})
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("payment: %w", err)
	}
	return res, nil
}

// paidCustomer is the customer part of the Payment output screen (Clause 2.5.3.3).
type paidCustomer struct {
	id                                                 int
	first, middle, last, street1, street2, city, state string
	zip, phone, credit, dataHead                       string
	since                                              pgtype.Timestamp
	creditLimit, discount, balance                     float64
}

func (c *paidCustomer) fields() []any {
	return []any{&c.id, &c.first, &c.middle, &c.last, &c.street1, &c.street2, &c.city, &c.state, &c.zip,
		&c.phone, &c.since, &c.credit, &c.creditLimit, &c.discount, &c.balance, &c.dataHead}
}

// customerError turns "no row" and the Payment guard's NOT NULL violation into
// ErrCustomerNotFound naming the selector.
func customerError(err error, w, d int, sel tpcc.CustomerSelector) error {
	var pgErr *pgconn.PgError
	if errors.Is(err, pgx.ErrNoRows) || (errors.As(err, &pgErr) && pgErr.Code == "23502" && pgErr.ColumnName == "h_c_id") {
		return tpcc.CustomerNotFound(w, d, sel)
	}
	return fmt.Errorf("%s: %w", tpcc.DescribeCustomer(w, d, sel), err)
}

func (e *pgwireExecutor) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput) (tpcc.OrderStatusResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.OrderStatusResult{}, err
	}
	res := tpcc.OrderStatusResult{ByLastName: in.Customer.ByLastName}
	query, arg := e.sql.orderStatusByID, any(in.Customer.ID)
	if in.Customer.ByLastName {
		query, arg = e.sql.orderStatusByName, in.Customer.LastName
	}
	retries, err := e.run(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		res.CustomerID, res.OrderID, res.Lines = 0, 0, 0
		rows, err := conn.Query(ctx, query, in.WarehouseID, in.DistrictID, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r orderStatusRow
			if err := rows.Scan(r.fields()...); err != nil {
				return err
			}
			res.CustomerID = r.customerID
			if r.orderID != nil {
				res.OrderID = int(*r.orderID)
			}
			if r.itemID != nil {
				res.Lines++
			}
		}
		if err := rows.Err(); err != nil {
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

// orderStatusRow is one row of the Order-Status output (Clause 2.6.3.3): the customer, the
// latest order (null when none) and one of its lines (null when none).
type orderStatusRow struct {
	customerID                int
	balance                   float64
	first, middle, last       string
	orderID, carrierID        *int32
	entryDate, deliveryDate   pgtype.Timestamp
	itemID, supplyW, quantity *int32
	amount                    *float64
}

func (r *orderStatusRow) fields() []any {
	return []any{&r.customerID, &r.balance, &r.first, &r.middle, &r.last, &r.orderID, &r.entryDate, &r.carrierID,
		&r.itemID, &r.supplyW, &r.quantity, &r.amount, &r.deliveryDate}
}

func (e *pgwireExecutor) Delivery(ctx context.Context, in *tpcc.DeliveryInput) (tpcc.DeliveryResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.DeliveryResult{}, err
	}
	var res tpcc.DeliveryResult
	retries, err := e.run(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		res.Delivered, res.Skipped = 0, 0
		b := &pgx.Batch{}
		b.Queue(e.sql.begin)
		for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
			b.Queue(e.sql.deliveryDistrict, in.WarehouseID, d, in.CarrierID)
		}
		b.Queue("COMMIT")
		return sendBatch(ctx, conn, b, func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				return err
			}
			for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
				var orderID int
				err := br.QueryRow().Scan(&orderID)
				switch {
				case errors.Is(err, pgx.ErrNoRows):
					res.Skipped++
				case err != nil:
					return fmt.Errorf("district %d/%d: %w", in.WarehouseID, d, err)
				default:
					res.Delivered++
				}
			}
			_, err := br.Exec()
			return err
		})
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("delivery: %w", err)
	}
	return res, nil
}

func (e *pgwireExecutor) StockLevel(ctx context.Context, in *tpcc.StockLevelInput) (tpcc.StockLevelResult, error) {
	if err := in.Validate(); err != nil {
		return tpcc.StockLevelResult{}, err
	}
	var res tpcc.StockLevelResult
	retries, err := e.run(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, e.sql.stockLevel, in.WarehouseID, in.DistrictID, in.Threshold).Scan(&res.LowStock)
	})
	res.Retries = retries
	if err != nil {
		return res, fmt.Errorf("stock-level: %w", err)
	}
	return res, nil
}
