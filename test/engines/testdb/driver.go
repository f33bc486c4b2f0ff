package testdb

import (
	"context"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// Driver is the engine's wire side: the PostgreSQL wire protocol and SQL of the pgwire package,
// under the engine's own dialect name, so that everything the core records of it (the dataset's
// engine, help texts) names TestDB.
type Driver struct {
	tpcc.Driver
}

var _ tpcc.Driver = Driver{}

// NewDriver is the test engine's driver.
func NewDriver() Driver { return Driver{Driver: pgwire.PostgresDriver()} }

// Name implements tpcc.Driver.
func (Driver) Name() string { return Dialect }

// Capabilities implements tpcc.Driver: the wire's, under the engine's title.
func (d Driver) Capabilities() tpcc.Capabilities {
	c := d.Driver.Capabilities()
	c.Title = string(Name)
	return c
}

// ReadDataset implements tpcc.Driver: the wire's reading, naming the engine's dialect.
func (d Driver) ReadDataset(ctx context.Context, url string) (snapshot.Dataset, error) {
	ds, err := d.Driver.ReadDataset(ctx, url)
	ds.Engine = Dialect
	return ds, err
}
