package tpcc

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Meta is the load-wide record in MetaTable: the seed every loader must share and the C constants
// derived from it (the run reads CRun, CID, OLIID from here).
type Meta struct {
	Seed        uint64
	Warehouses  int // the largest --warehouses any load declared
	Constants   Constants
	ItemsLoaded bool
	Finished    bool // primary keys (where added late) and secondary indexes exist
}

// constantsStream is the random stream of the C constants, apart from all data streams.
const constantsStream = 1 << 62

// ConstantsForSeed derives the C constants of a load from its seed.
func ConstantsForSeed(seed uint64) Constants { return NewConstants(NewRand(seed, constantsStream)) }

// ErrNotLoaded means the database holds no TPC-C meta table or row.
var ErrNotLoaded = errors.New("no TPC-C data: the meta table " + MetaTable + " is missing or empty (run tpcc load first)")

// MissingWarehouses lists the warehouses of from..to that are not in state done.
func MissingWarehouses(states map[int]string, from, to int) []int {
	var missing []int
	for w := from; w <= to; w++ {
		if states[w] != StateDone {
			missing = append(missing, w)
		}
	}
	return missing
}

// FormatRanges renders sorted warehouse ids compactly, e.g. [1 2 3 7 9 10] → "1-3,7,9-10".
func FormatRanges(ids []int) string {
	ids = append([]int(nil), ids...)
	sort.Ints(ids)
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ValidateRange checks --warehouses, --from, --to and --threads, naming the flag of a problem, and
// returns the range with its defaults (0, 0 → 1..warehouses).
func ValidateRange(warehouses, from, to, threads int) (int, int, error) {
	if warehouses < 1 {
		return 0, 0, fmt.Errorf("--warehouses must be >= 1, got %d", warehouses)
	}
	if from == 0 {
		from = 1
	}
	if to == 0 {
		to = warehouses
	}
	if from < 1 || from > warehouses {
		return 0, 0, fmt.Errorf("--from %d outside 1..%d (--warehouses)", from, warehouses)
	}
	if to < from || to > warehouses {
		return 0, 0, fmt.Errorf("--to %d outside %d..%d (--from..--warehouses)", to, from, warehouses)
	}
	if threads < 1 {
		return 0, 0, fmt.Errorf("--threads must be >= 1, got %d", threads)
	}
	return from, to, nil
}
