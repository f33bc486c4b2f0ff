package pgwire

// conditionSQL is each consistency condition (tpcc.Conditions, by ID) as a query over the
// warehouse range [$1, $2] that returns the offending rows ordered by warehouse (at most one is
// read). Its first columns name the place (warehouse, then district/customer/order ids); the rest
// are the values that disagree, named by their column aliases. The SQL is the common subset of
// PostgreSQL and CockroachDB; sums are numeric, so comparisons are exact.
var conditionSQL = map[string]string{
	"cardinality": `
SELECT w.w_id, d.n AS districts, c.n AS customers, s.n AS stock, o.n AS orders, h.n AS history
FROM warehouse w
LEFT JOIN (SELECT d_w_id, count(*) n FROM district WHERE d_w_id BETWEEN $1 AND $2 GROUP BY d_w_id) d ON d.d_w_id = w.w_id
LEFT JOIN (SELECT c_w_id, count(*) n FROM customer WHERE c_w_id BETWEEN $1 AND $2 GROUP BY c_w_id) c ON c.c_w_id = w.w_id
LEFT JOIN (SELECT s_w_id, count(*) n FROM stock WHERE s_w_id BETWEEN $1 AND $2 GROUP BY s_w_id) s ON s.s_w_id = w.w_id
LEFT JOIN (SELECT o_w_id, count(*) n FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY o_w_id) o ON o.o_w_id = w.w_id
LEFT JOIN (SELECT h_w_id, count(*) n FROM history WHERE h_w_id BETWEEN $1 AND $2 GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE w.w_id BETWEEN $1 AND $2
  AND (d.n IS DISTINCT FROM 10 OR c.n IS DISTINCT FROM 30000 OR s.n IS DISTINCT FROM 100000
       OR coalesce(o.n, 0) < 30000 OR coalesce(h.n, 0) < 30000)
ORDER BY w.w_id LIMIT 1`,
	"3.3.2.1": `
SELECT w_id, w_ytd, d.s AS sum_d_ytd
FROM warehouse LEFT JOIN (SELECT d_w_id, sum(d_ytd) s FROM district WHERE d_w_id BETWEEN $1 AND $2 GROUP BY d_w_id) d ON d.d_w_id = w_id
WHERE w_id BETWEEN $1 AND $2 AND w_ytd IS DISTINCT FROM d.s
ORDER BY w_id LIMIT 1`,
	"3.3.2.2": `
SELECT d_w_id, d_id, d_next_o_id - 1 AS d_next_o_id_minus_1, o.m AS max_o_id, n.m AS max_no_o_id
FROM district
LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) m FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d_w_id AND o.o_d_id = d_id
LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) m FROM new_order WHERE no_w_id BETWEEN $1 AND $2 GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d_w_id AND n.no_d_id = d_id
WHERE d_w_id BETWEEN $1 AND $2
  AND (d_next_o_id - 1 IS DISTINCT FROM o.m OR (n.m IS NOT NULL AND n.m <> d_next_o_id - 1))
ORDER BY d_w_id, d_id LIMIT 1`,
	"3.3.2.3": `
SELECT no_w_id, no_d_id, max(no_o_id) - min(no_o_id) + 1 AS id_span, count(*) AS new_orders
FROM new_order WHERE no_w_id BETWEEN $1 AND $2
GROUP BY no_w_id, no_d_id HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)
ORDER BY no_w_id, no_d_id LIMIT 1`,
	"3.3.2.4": `
SELECT o.o_w_id, o.o_d_id, o.s AS sum_o_ol_cnt, l.n AS order_lines
FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) s FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY o_w_id, o_d_id) o
LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) n FROM order_line WHERE ol_w_id BETWEEN $1 AND $2 GROUP BY ol_w_id, ol_d_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
WHERE o.s IS DISTINCT FROM l.n
ORDER BY o.o_w_id, o.o_d_id LIMIT 1`,
	"3.3.2.5": `
SELECT o_w_id, o_d_id, o_id, o_carrier_id, no_o_id AS new_order_o_id
FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
WHERE o_w_id BETWEEN $1 AND $2 AND (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)
ORDER BY o_w_id, o_d_id, o_id LIMIT 1`,
	"3.3.2.6": `
SELECT o_w_id, o_d_id, o_id, o_ol_cnt, l.n AS order_lines
FROM orders LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) n FROM order_line WHERE ol_w_id BETWEEN $1 AND $2
                        GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id
WHERE o_w_id BETWEEN $1 AND $2 AND o_ol_cnt IS DISTINCT FROM l.n
ORDER BY o_w_id, o_d_id, o_id LIMIT 1`,
	"3.3.2.7": `
SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, o_carrier_id
FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
WHERE ol_w_id BETWEEN $1 AND $2 AND (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)
ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number LIMIT 1`,
	"3.3.2.8": `
SELECT w_id, w_ytd, h.s AS sum_h_amount
FROM warehouse LEFT JOIN (SELECT h_w_id, sum(h_amount) s FROM history WHERE h_w_id BETWEEN $1 AND $2 GROUP BY h_w_id) h ON h.h_w_id = w_id
WHERE w_id BETWEEN $1 AND $2 AND w_ytd IS DISTINCT FROM h.s
ORDER BY w_id LIMIT 1`,
	"3.3.2.9": `
SELECT d_w_id, d_id, d_ytd, h.s AS sum_h_amount
FROM district LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) s FROM history WHERE h_w_id BETWEEN $1 AND $2 GROUP BY h_w_id, h_d_id) h
  ON h.h_w_id = d_w_id AND h.h_d_id = d_id
WHERE d_w_id BETWEEN $1 AND $2 AND d_ytd IS DISTINCT FROM h.s
ORDER BY d_w_id, d_id LIMIT 1`,
	"3.3.2.10": `
SELECT c_w_id, c_d_id, c_id, sum(balance) AS c_balance, sum(delivered) - sum(paid) AS delivered_minus_paid
FROM (` + perCustomerAmounts + `) x
GROUP BY c_w_id, c_d_id, c_id HAVING sum(balance) <> sum(delivered) - sum(paid)
ORDER BY c_w_id, c_d_id, c_id LIMIT 1`,
	"3.3.2.11": `
SELECT o.o_w_id, o.o_d_id, o.n AS orders, coalesce(n.n, 0) AS new_orders
FROM (SELECT o_w_id, o_d_id, count(*) n FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY o_w_id, o_d_id) o
LEFT JOIN (SELECT no_w_id, no_d_id, count(*) n FROM new_order WHERE no_w_id BETWEEN $1 AND $2 GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id
WHERE o.n - coalesce(n.n, 0) <> 2100
ORDER BY o.o_w_id, o.o_d_id LIMIT 1`,
	"3.3.2.12": `
SELECT c_w_id, c_d_id, c_id, sum(balance) + sum(ytd_payment) AS balance_plus_ytd_payment, sum(delivered) AS delivered_amount
FROM (` + perCustomerAmounts + `) x
GROUP BY c_w_id, c_d_id, c_id HAVING sum(balance) + sum(ytd_payment) <> sum(delivered)
ORDER BY c_w_id, c_d_id, c_id LIMIT 1`,
}

// perCustomerAmounts lines up, per customer, its balance and YTD payment, the amounts of its
// delivered order lines and of its payments, for one aggregation. (Joining three per-customer
// aggregates instead lets the planner pick a nested loop under LIMIT 1: 30 000 × 30 000 per
// warehouse, minutes instead of a second.) The zeros are cast to money: CockroachDB does not
// unify INT with DECIMAL across UNION branches, and a sum of zeros then prints as 0.00, as the
// client-side evaluation (YDB) prints it.
const perCustomerAmounts = `
  SELECT c_w_id, c_d_id, c_id, c_balance AS balance, c_ytd_payment AS ytd_payment,
         CAST(0 AS numeric(12,2)) AS delivered, CAST(0 AS numeric(12,2)) AS paid
  FROM customer WHERE c_w_id BETWEEN $1 AND $2
  UNION ALL
  SELECT o_w_id, o_d_id, o_c_id, CAST(0 AS numeric(12,2)), CAST(0 AS numeric(12,2)), ol_amount, CAST(0 AS numeric(12,2))
  FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE o_w_id BETWEEN $1 AND $2 AND ol_w_id BETWEEN $1 AND $2 AND ol_delivery_d IS NOT NULL
  UNION ALL
  SELECT h_c_w_id, h_c_d_id, h_c_id, CAST(0 AS numeric(12,2)), CAST(0 AS numeric(12,2)), CAST(0 AS numeric(12,2)), h_amount
  FROM history WHERE h_c_w_id BETWEEN $1 AND $2`
