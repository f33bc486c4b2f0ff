package k6ext

import (
	"fmt"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// checkLoaded verifies that the database holds what the run drives: --warehouses no larger than
// the loaded count, and every active warehouse (terminals pick remote warehouses among them)
// loaded completely.
func checkLoaded(ld tpcc.LoadedData, warehouses, active int) error {
	if warehouses > ld.Meta.Warehouses {
		return fmt.Errorf("--warehouses %d: the database holds %d loaded warehouses (meta table %s)", warehouses, ld.Meta.Warehouses, tpcc.MetaTable)
	}
	if missing := tpcc.MissingWarehouses(ld.States, 1, active); len(missing) > 0 {
		return fmt.Errorf("--active-warehouses %d: warehouses %s are not loaded (run tpcc load)", active, tpcc.FormatRanges(missing))
	}
	return nil
}
