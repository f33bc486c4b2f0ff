package pgwire

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// CopyFiles describes the files WriteCopyFiles produced, for a load from files (the ceiling the
// benchmark compares the streamed load against).
type CopyFiles struct {
	Dir        string
	SchemaSQL  string   // CREATE TABLE statements (PostgreSQL)
	ItemFile   string   // item.copy
	ItemSQL    string   // item.sql: the COPY … FROM '<item.copy>' statement
	Warehouses []string // per warehouse: a SQL script of its COPY … FROM '<file>' statements in one transaction
	FinishSQL  string   // late primary keys, secondary indexes, VACUUM (ANALYZE)
}

// WriteCopyFiles writes the generated rows of warehouses from..to (and the item table) as COPY
// files in PostgreSQL's load format (binary, what Load streams) under dir, with SQL scripts that load them server-side (COPY … FROM '<file>' needs
// the files readable by the server). The data equals what Load writes for the same seed and time.
func WriteCopyFiles(ctx context.Context, dir string, seed uint64, now time.Time, from, to, threads int) (CopyFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return CopyFiles{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return CopyFiles{}, err
	}
	gen := &tpcc.Generator{Seed: seed, Constants: tpcc.ConstantsForSeed(seed), Now: now}
	out := CopyFiles{Dir: abs, SchemaSQL: filepath.Join(abs, "schema.sql"), ItemFile: filepath.Join(abs, "item.copy"),
		ItemSQL: filepath.Join(abs, "item.sql"), FinishSQL: filepath.Join(abs, "finish.sql")}
	if err := os.WriteFile(out.SchemaSQL, []byte(strings.Join(Postgres.SchemaDDL(tpcc.TablesLogged), ";\n")+";\n"), 0o644); err != nil {
		return CopyFiles{}, err
	}
	var finish []string
	for _, pk := range Postgres.PrimaryKeyDDL() {
		finish = append(finish, pk.SQL)
	}
	finish = append(append(finish, SecondaryIndexDDL()...), "VACUUM (ANALYZE)") // as tpcc load's default finish
	if err := os.WriteFile(out.ItemSQL, []byte(copyFromFile(tpcc.ItemTable, out.ItemFile)+"\n"), 0o644); err != nil {
		return CopyFiles{}, err
	}
	if err := os.WriteFile(out.FinishSQL, []byte(strings.Join(finish, ";\n")+";\n"), 0o644); err != nil {
		return CopyFiles{}, err
	}
	if err := writeCopyFile(out.ItemFile, gen, tpcc.ItemTable, 0); err != nil {
		return CopyFiles{}, err
	}
	out.Warehouses = make([]string, to-from+1)
	work := make(chan int)
	errs := make(chan error, threads)
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range work {
				script, err := writeWarehouseFiles(abs, gen, w)
				if err != nil {
					errs <- err
					return
				}
				out.Warehouses[w-from] = script
			}
		}()
	}
	for w := from; w <= to && ctx.Err() == nil; w++ {
		select {
		case work <- w:
		case err := <-errs:
			close(work)
			wg.Wait()
			return CopyFiles{}, err
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return CopyFiles{}, err
	default:
	}
	return out, ctx.Err()
}

func writeWarehouseFiles(dir string, gen *tpcc.Generator, w int) (string, error) {
	var script strings.Builder
	script.WriteString("BEGIN;\n")
	for _, t := range tpcc.WarehouseTables {
		f := filepath.Join(dir, fmt.Sprintf("w%06d.%s.copy", w, t.Name))
		if err := writeCopyFile(f, gen, t, w); err != nil {
			return "", err
		}
		script.WriteString(copyFromFile(t, f) + "\n")
	}
	script.WriteString("COMMIT;\n")
	path := filepath.Join(dir, fmt.Sprintf("w%06d.sql", w))
	return path, os.WriteFile(path, []byte(script.String()), 0o644)
}

func writeCopyFile(path string, gen *tpcc.Generator, t tpcc.Table, w int) error {
	src, err := gen.Source(t, w)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if _, err := bw.ReadFrom(NewCopyReaderFormat(src, gen.Now, Postgres.copyFormat)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyFromFile is the server-side COPY of t from path, in PostgreSQL's load format.
func copyFromFile(t tpcc.Table, path string) string {
	return copyInto(t) + " FROM '" + path + "'" + copyOptions(Postgres.copyFormat) + ";"
}
