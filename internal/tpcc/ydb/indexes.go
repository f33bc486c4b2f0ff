package ydb

import (
	"context"
	"fmt"
	"path"
	"slices"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/table"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// addMissingIndexes adds each of the indexes its table does not have yet: YQL has no
// IF NOT EXISTS for indexes, so the table's description is read first.
func addMissingIndexes(ctx context.Context, db *ydb.Driver, indexes []tpcc.Index) error {
	for _, ix := range indexes {
		have, err := tableIndexes(ctx, db, ix.Table)
		if err != nil {
			return fmt.Errorf("describe %s: %w", ix.Table, err)
		}
		if slices.Contains(have, ix.Name) {
			continue
		}
		sql := indexDDL(ix)
		end := tpcc.FinishTrackerFrom(ctx).Begin(sql) // in a load's finish, its progress
		err = db.Query().Exec(ctx, sql)
		end()
		if err != nil {
			return fmt.Errorf("%w\n%s", err, sql)
		}
	}
	return nil
}

// tableIndexes names the secondary indexes of a table.
func tableIndexes(ctx context.Context, db *ydb.Driver, name string) (names []string, err error) {
	err = db.Table().Do(ctx, func(ctx context.Context, s table.Session) error {
		d, err := s.DescribeTable(ctx, path.Join(db.Name(), name))
		if err != nil {
			return err
		}
		names = names[:0]
		for _, ix := range d.Indexes {
			names = append(names, ix.Name)
		}
		return nil
	}, table.WithIdempotent())
	return names, err
}
