package tpcc

import "fmt"

// Shares of the input rules, in percent (Clauses 2.4.1.4, 2.4.1.5.2, 2.5.1.2, 2.6.1.2).
const (
	NewOrderRollbackPercent   = 1
	RemoteOrderLinePercent    = 1
	RemotePaymentPercent      = 15
	CustomerByLastNamePercent = 60
)

// Ranges of the uniform inputs.
const (
	MinOrderLineQuantity   = 1
	MaxOrderLineQuantity   = 10
	MinPaymentAmountCents  = 100    // 1.00
	MaxPaymentAmountCents  = 500000 // 5000.00
	MinCarrierID           = 1
	MaxCarrierID           = 10
	MinStockLevelThreshold = 10
	MaxStockLevelThreshold = 20
)

// TerminalConfig fixes what a terminal keeps for its whole life (Clauses 2.8.1, 5.2.2).
type TerminalConfig struct {
	HomeWarehouseID  int // the terminal's W_ID
	HomeDistrictID   int // the terminal's D_ID for Stock-Level, 1..10
	ActiveWarehouses int // warehouses 1..ActiveWarehouses take part: remote lines and payments pick among them
}

// Validate names the first field that is out of range.
func (c TerminalConfig) Validate() error {
	switch {
	case c.ActiveWarehouses < 1:
		return fmt.Errorf("terminal: ActiveWarehouses %d must be >= 1", c.ActiveWarehouses)
	case c.HomeWarehouseID < 1 || c.HomeWarehouseID > c.ActiveWarehouses:
		return fmt.Errorf("terminal: HomeWarehouseID %d outside the active warehouses [1, %d]", c.HomeWarehouseID, c.ActiveWarehouses)
	case c.HomeDistrictID < 1 || c.HomeDistrictID > DistrictsPerWarehouse:
		return fmt.Errorf("terminal: HomeDistrictID %d outside [1, %d]", c.HomeDistrictID, DistrictsPerWarehouse)
	}
	return nil
}

// InputGenerator draws the spec's transaction inputs for one terminal. It owns its random
// stream and takes no lock: give every terminal its own.
type InputGenerator struct {
	rng       *Rand
	constants Constants
	cfg       TerminalConfig
}

// NewInputGenerator returns a generator for the terminal cfg, drawing from rng with the run's
// NURand constants.
func NewInputGenerator(rng *Rand, constants Constants, cfg TerminalConfig) (*InputGenerator, error) {
	if rng == nil {
		return nil, fmt.Errorf("terminal: random generator is nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := constants.Validate(); err != nil {
		return nil, fmt.Errorf("terminal: NURand constants: %w", err)
	}
	return &InputGenerator{rng: rng, constants: constants, cfg: cfg}, nil
}

// Config returns the terminal's fixed configuration.
func (g *InputGenerator) Config() TerminalConfig { return g.cfg }

// percent reports true with probability p/100.
func (g *InputGenerator) percent(p int) bool { return g.rng.Intn(100) < p }

// otherWarehouse returns a warehouse other than home, uniform over the active ones; home when
// it is the only one.
func (g *InputGenerator) otherWarehouse() int {
	if g.cfg.ActiveWarehouses == 1 {
		return g.cfg.HomeWarehouseID
	}
	w := g.rng.IntRange(1, g.cfg.ActiveWarehouses-1)
	if w >= g.cfg.HomeWarehouseID {
		w++
	}
	return w
}

func (g *InputGenerator) customer() CustomerSelector {
	if g.percent(CustomerByLastNamePercent) {
		return CustomerSelector{ByLastName: true, LastName: LastName(g.rng.LastNameNumber(g.constants.CRun))}
	}
	return CustomerSelector{ID: g.rng.CustomerID(g.constants.CID)}
}

// NewOrder returns a New-Order input (Clause 2.4.1).
func (g *InputGenerator) NewOrder() NewOrderInput {
	home := g.cfg.HomeWarehouseID
	in := NewOrderInput{
		WarehouseID: home,
		DistrictID:  g.rng.IntRange(1, DistrictsPerWarehouse),
		CustomerID:  g.rng.CustomerID(g.constants.CID),
	}
	count := g.rng.IntRange(MinOrderLines, MaxOrderLines)
	rollback := g.percent(NewOrderRollbackPercent)
	lines := make([]NewOrderLine, count)
	for i := range lines {
		supply := home
		if g.cfg.ActiveWarehouses > 1 && g.percent(RemoteOrderLinePercent) {
			supply = g.otherWarehouse()
		}
		lines[i] = NewOrderLine{
			ItemID:            g.rng.ItemID(g.constants.OLIID),
			SupplyWarehouseID: supply,
			Quantity:          g.rng.IntRange(MinOrderLineQuantity, MaxOrderLineQuantity),
		}
	}
	if rollback {
		lines[count-1].ItemID = UnusedItemID
	}
	in.Lines = lines
	return in
}

// Payment returns a Payment input (Clause 2.5.1).
func (g *InputGenerator) Payment() PaymentInput {
	in := PaymentInput{
		WarehouseID: g.cfg.HomeWarehouseID,
		DistrictID:  g.rng.IntRange(1, DistrictsPerWarehouse),
	}
	if g.cfg.ActiveWarehouses > 1 && g.percent(RemotePaymentPercent) {
		in.CustomerWarehouseID = g.otherWarehouse()
		in.CustomerDistrictID = g.rng.IntRange(1, DistrictsPerWarehouse)
	} else {
		in.CustomerWarehouseID = in.WarehouseID
		in.CustomerDistrictID = in.DistrictID
	}
	in.Customer = g.customer()
	in.AmountCents = int64(g.rng.IntRange(MinPaymentAmountCents, MaxPaymentAmountCents))
	return in
}

// OrderStatus returns an Order-Status input (Clause 2.6.1).
func (g *InputGenerator) OrderStatus() OrderStatusInput {
	return OrderStatusInput{
		WarehouseID: g.cfg.HomeWarehouseID,
		DistrictID:  g.rng.IntRange(1, DistrictsPerWarehouse),
		Customer:    g.customer(),
	}
}

// Delivery returns a Delivery input (Clause 2.7.1).
func (g *InputGenerator) Delivery() DeliveryInput {
	return DeliveryInput{WarehouseID: g.cfg.HomeWarehouseID, CarrierID: g.rng.IntRange(MinCarrierID, MaxCarrierID)}
}

// StockLevel returns a Stock-Level input for the terminal's own district (Clause 2.8.1).
func (g *InputGenerator) StockLevel() StockLevelInput {
	return StockLevelInput{
		WarehouseID: g.cfg.HomeWarehouseID,
		DistrictID:  g.cfg.HomeDistrictID,
		Threshold:   g.rng.IntRange(MinStockLevelThreshold, MaxStockLevelThreshold),
	}
}
