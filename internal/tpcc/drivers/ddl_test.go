package drivers

import (
	"slices"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/ydb"
)

func TestDDLPerDialect(t *testing.T) {
	cases := []struct {
		dialect string
		want    []string
		notWant []string
	}{
		{"postgres", []string{
			"CREATE TABLE IF NOT EXISTS warehouse (\n  w_id integer NOT NULL",
			"w_ytd numeric(12,2) NOT NULL", "c_discount numeric(4,4) NOT NULL", "o_carrier_id integer,",
			"ol_delivery_d timestamp,", "h_amount numeric(6,2) NOT NULL", "s_dist_10 char(24) NOT NULL",
			"CREATE TABLE IF NOT EXISTS tpcc_meta", "CREATE TABLE IF NOT EXISTS tpcc_warehouse_load",
			"ALTER TABLE stock ALTER COLUMN s_dist_01 SET STATISTICS 0,", "ALTER COLUMN s_data SET STATISTICS 0",
			"ALTER COLUMN c_data SET STATISTICS 0", "ALTER TABLE order_line ALTER COLUMN ol_dist_info SET STATISTICS 0",
		}, []string{"PRIMARY KEY (w_id)", "rowid", "h_pk", "c_last SET STATISTICS", "c_first SET STATISTICS",
			"s_quantity SET STATISTICS", "ol_i_id SET STATISTICS", "c_balance SET STATISTICS"}},
		{"cockroach", []string{
			"w_id INT4 NOT NULL", "PRIMARY KEY (w_id)", "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
			"rowid UUID NOT NULL DEFAULT gen_random_uuid()", "PRIMARY KEY (h_w_id, rowid)", "c_balance numeric(12,2) NOT NULL",
		}, []string{"h_pk", "Int32", "SET STATISTICS"}},
		{"ydb", []string{
			"CREATE TABLE IF NOT EXISTS `warehouse` (\n  w_id Int32 NOT NULL", "w_ytd Decimal(22,9)", "c_last Utf8",
			"o_entry_d Timestamp", "PRIMARY KEY (s_w_id, s_i_id)", "h_pk Uint64 NOT NULL", "PRIMARY KEY (h_w_id, h_pk)",
			"AUTO_PARTITIONING_BY_LOAD = ENABLED",
		}, []string{"numeric", "varchar", "rowid", "w_ytd Decimal(22,9) NOT NULL", "SET STATISTICS"}},
	}
	for _, tc := range cases {
		ddl := strings.Join(mustLookup(t, tc.dialect).SchemaDDL(tpcc.TablesLogged), ";\n")
		for _, w := range tc.want {
			if !strings.Contains(ddl, w) {
				t.Errorf("%s DDL lacks %q", tc.dialect, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(ddl, w) {
				t.Errorf("%s DDL contains %q", tc.dialect, w)
			}
		}
		if got := strings.Count(ddl, "CREATE TABLE"); got != 11 {
			t.Errorf("%s: %d tables, want 9 + 2 meta", tc.dialect, got)
		}
	}
}

func TestLateKeysAndIndexes(t *testing.T) {
	pks := pgwire.Postgres.PrimaryKeyDDL()
	if len(pks) != 8 {
		t.Fatalf("%d late primary keys for postgres, want 8 (every table but history)", len(pks))
	}
	if pks[0].SQL != "ALTER TABLE warehouse ADD CONSTRAINT warehouse_pkey PRIMARY KEY (w_id)" {
		t.Errorf("first key: %s", pks[0].SQL)
	}
	if len(pgwire.Cockroach.PrimaryKeyDDL()) != 0 || pgwire.FlavourOf(mustLookup(t, "ydb")) != nil || mustLookup(t, "ydb").Capabilities().KeysAfterLoad {
		t.Error("cockroach/ydb keys must come with CREATE TABLE")
	}
	for _, d := range All() {
		if f := pgwire.FlavourOf(d); f != nil && d.Capabilities().KeysAfterLoad != (len(f.PrimaryKeyDDL()) > 0) {
			t.Errorf("%s: KeysAfterLoad %t, %d late keys", d.Name(), d.Capabilities().KeysAfterLoad, len(f.PrimaryKeyDDL()))
		}
	}
	want := map[string][]string{
		"pgwire": {
			"CREATE INDEX IF NOT EXISTS customer_name_idx ON customer (c_w_id, c_d_id, c_last, c_first)",
			"CREATE INDEX IF NOT EXISTS orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id)",
			"CREATE INDEX IF NOT EXISTS history_district_idx ON history (h_w_id, h_d_id) INCLUDE (h_amount)",
			"CREATE INDEX IF NOT EXISTS history_customer_idx ON history (h_c_w_id, h_c_d_id, h_c_id) INCLUDE (h_amount)",
		},
		"ydb": {
			"ALTER TABLE `customer` ADD INDEX `customer_name_idx` GLOBAL ON (c_w_id, c_d_id, c_last, c_first)",
			"ALTER TABLE `orders` ADD INDEX `orders_customer_idx` GLOBAL ON (o_w_id, o_d_id, o_c_id, o_id)",
			"ALTER TABLE `history` ADD INDEX `history_district_idx` GLOBAL ON (h_w_id, h_d_id)",
			"ALTER TABLE `history` ADD INDEX `history_customer_idx` GLOBAL ON (h_c_w_id, h_c_d_id, h_c_id)",
		},
	}
	indexes := map[string][]string{"pgwire": pgwire.SecondaryIndexDDL(), "ydb": ydb.SecondaryIndexDDL()}
	for d, w := range want {
		if ix := indexes[d]; !slices.Equal(ix, w) {
			t.Errorf("%s indexes %q, want %q", d, ix, w)
		}
	}
}

func TestUnloggedDDL(t *testing.T) {
	pg := mustLookup(t, "postgres")
	ddl := strings.Join(pg.SchemaDDL(tpcc.TablesUnlogged), ";\n")
	if got := strings.Count(ddl, "CREATE UNLOGGED TABLE IF NOT EXISTS"); got != 11 {
		t.Errorf("postgres unlogged: %d unlogged tables, want 9 + 2 meta:\n%s", got, ddl)
	}
	if strings.Contains(strings.Join(pg.SchemaDDL(tpcc.TablesLogged), ";"), "UNLOGGED") {
		t.Error("postgres logged DDL contains UNLOGGED")
	}
	for _, d := range []tpcc.Driver{mustLookup(t, "cockroach"), mustLookup(t, "ydb")} {
		if strings.Contains(strings.Join(d.SchemaDDL(tpcc.TablesUnlogged), ";"), "UNLOGGED") {
			t.Errorf("%s DDL contains UNLOGGED", d.Name())
		}
		o := tpcc.LoadOptions{Driver: d, URL: "x", Warehouses: 1, Threads: 1, Tables: tpcc.TablesUnlogged}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--tables unlogged") {
			t.Errorf("%s: Validate = %v, want a --tables error", d.Name(), err)
		}
	}
}
