package isolation

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Level{
		"ReadCommitted": ReadCommitted, "read-committed": ReadCommitted, "READ COMMITTED": ReadCommitted, "read_committed": ReadCommitted,
		"RepeatableRead": RepeatableRead, "repeatable-read": RepeatableRead, "Repeatable Read": RepeatableRead,
		"Serializable": Serializable, "serializable": Serializable, " SERIALIZABLE ": Serializable,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "snapshot", "read uncommitted", "serial"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "read-committed, repeatable-read or serializable") {
			t.Errorf("Parse(%q) = %v, want an error naming the accepted values", bad, err)
		}
	}
}

// Every level survives its spellings: the flag, SQL and the server's report.
func TestSpellingsRoundTrip(t *testing.T) {
	for _, l := range Levels {
		if got, err := Parse(l.Flag()); err != nil || got != l {
			t.Errorf("%s: flag %q parses as %q, %v", l, l.Flag(), got, err)
		}
		if got, err := Parse(l.SQL()); err != nil || got != l {
			t.Errorf("%s: SQL %q parses as %q, %v", l, l.SQL(), got, err)
		}
		if got, ok := FromReported(l.Reported()); !ok || got != l {
			t.Errorf("%s: reported %q reads as %q", l, l.Reported(), got)
		}
	}
	if ReadCommitted.SQL() != "READ COMMITTED" || RepeatableRead.Reported() != "repeatable read" || Serializable.Flag() != "serializable" {
		t.Error("spellings changed")
	}
}

func TestCheck(t *testing.T) {
	// A hint of an engine that upgrades the levels below Serializable unless a setting enables them.
	upgrades := func(l Level) string {
		if l == Serializable {
			return ""
		}
		return "set enable_" + l.Flag()
	}
	cases := []struct {
		want     Level
		reported string
		hint     func(Level) string
		errHas   []string
	}{
		{Serializable, "serializable", upgrades, nil},
		{ReadCommitted, "read committed", nil, nil},
		{RepeatableRead, "Repeatable Read", nil, nil},
		{RepeatableRead, "serializable", upgrades, []string{"asked for REPEATABLE READ", `"serializable"`, "(set enable_repeatable-read)"}},
		{ReadCommitted, "serializable", upgrades, []string{"(set enable_read-committed)"}},
		// Without a hint, or with one that has nothing to say, the error names what the server ran only.
		{Serializable, "read committed", nil, []string{"asked for SERIALIZABLE", `"read committed"`}},
		{Serializable, "read committed", upgrades, []string{"asked for SERIALIZABLE", `"read committed"`}},
		{ReadCommitted, "", nil, []string{`as ""`}},
	}
	for _, c := range cases {
		err := Check(c.want, c.reported, c.hint)
		if (err != nil) != (len(c.errHas) > 0) {
			t.Errorf("Check(%s, %q) = %v", c.want, c.reported, err)
			continue
		}
		for _, s := range c.errHas {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Check(%s, %q) = %v, want it to mention %q", c.want, c.reported, err, s)
			}
		}
		if err != nil && (c.hint == nil || c.hint(c.want) == "") && strings.Contains(err.Error(), "(") {
			t.Errorf("Check(%s, %q) adds a hint it was not given: %v", c.want, c.reported, err)
		}
	}
}
