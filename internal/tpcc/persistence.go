package tpcc

import "fmt"

// TablePersistence is whether the loader creates the tables logged (durable, replicated) or
// unlogged (no WAL: not replicated, emptied by crash recovery; Capabilities.UnloggedTables). The meta tables
// follow the TPC-C tables: logged meta rows would outlive the rows crash recovery truncated, and a
// resumed load would skip warehouses that are gone.
type TablePersistence string

const (
	TablesLogged   TablePersistence = "logged"
	TablesUnlogged TablePersistence = "unlogged"
)

// ParseTablePersistence turns a --tables value into a TablePersistence, naming the flag on error.
func ParseTablePersistence(s string) (TablePersistence, error) {
	switch p := TablePersistence(s); p {
	case TablesLogged, TablesUnlogged:
		return p, nil
	}
	return "", fmt.Errorf("--tables %q: want logged or unlogged", s)
}

// validateFor checks that the engine has tables of this persistence. The command line names the
// engines that have them (cmd/tpcc) before it gets here.
func (p TablePersistence) validateFor(d Driver) error {
	if p == TablesUnlogged && !d.Capabilities().UnloggedTables {
		return fmt.Errorf("--tables unlogged: engine %s has no unlogged tables", d.Name())
	}
	return nil
}
