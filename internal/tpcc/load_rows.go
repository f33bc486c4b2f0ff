package tpcc

// RowsPerWarehouse is the rows a load writes for one warehouse (Clause 4.3.3.1): the warehouse, its
// districts, customers, history rows, orders, new orders, order lines (5 to 15 per order, uniform:
// 10 on average, so this one table's count is an expectation) and stock.
const RowsPerWarehouse = 1 + DistrictsPerWarehouse + CustomersPerWarehouse + HistoryPerWarehouse +
	OrdersPerWarehouse + NewOrdersPerWarehouse + OrdersPerWarehouse*(MinOrderLines+MaxOrderLines)/2 + StockPerWarehouse

// LoadRows is the rows a load of warehouses writes: the item table once, and RowsPerWarehouse for
// each warehouse.
func LoadRows(warehouses int) int64 {
	if warehouses <= 0 {
		return 0
	}
	return Items + int64(warehouses)*RowsPerWarehouse
}
