package shard

import "testing"

func TestOfCoversEveryWarehouseOnce(t *testing.T) {
	for n := 1; n <= 60; n++ {
		for count := 1; count <= n; count++ {
			next := 1
			for i := range count {
				r, err := Of(n, i, count)
				if err != nil {
					t.Fatalf("Of(%d, %d, %d): %v", n, i, count, err)
				}
				if r.From != next || r.Len() < n/count || r.Len() > n/count+1 {
					t.Fatalf("Of(%d, %d, %d) = %v, want a range from %d of %d or %d", n, i, count, r, next, n/count, n/count+1)
				}
				next = r.To + 1
			}
			if next != n+1 {
				t.Fatalf("n=%d count=%d: ranges end at %d", n, count, next-1)
			}
		}
	}
}

func TestOfRejects(t *testing.T) {
	for _, tc := range []struct{ n, index, count int }{{0, 0, 1}, {5, 0, 0}, {5, 0, 6}, {5, -1, 2}, {5, 2, 2}} {
		if _, err := Of(tc.n, tc.index, tc.count); err == nil {
			t.Errorf("Of(%d, %d, %d) accepted", tc.n, tc.index, tc.count)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct{ n, perPod, limit, want int }{
		{1, 500, 0, 1}, {500, 500, 0, 1}, {501, 500, 0, 2}, {10000, 500, 8, 8}, {3, 1, 0, 3}, {3, 0, 0, 3}, {0, 10, 0, 1},
	} {
		if got := Count(tc.n, tc.perPod, tc.limit); got != tc.want {
			t.Errorf("Count(%d, %d, %d) = %d, want %d", tc.n, tc.perPod, tc.limit, got, tc.want)
		}
	}
}
