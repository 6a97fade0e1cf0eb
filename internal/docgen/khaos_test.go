package docgen

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestKhaosFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{khaosShort(119), "119"},
		{khaosShort(19), "19"},
		{khaosShort(94.319), "94.32"},
		{khaosShort(0.5), "0.5"},
		{khaosShort(240), "240"},
		{khaosClock(17700), "4:55:00"},
		{khaosClock(46499.6), "12:55:00"},
		{khaosClock(59), "0:00:59"},
		{khaosAnd(nil), ""},
		{khaosAnd([]string{"60"}), "60"},
		{khaosAnd([]string{"60", "90"}), "60 and 90"},
		{khaosAnd([]string{"60", "90", "120"}), "60, 90 and 120"},
		{khaosTimes(1), "once"},
		{khaosTimes(11), "11 times"},
		{khaosRefKey("CI 10 s"), "static 10"},
		{khaosRefKey("120 s"), "static 120"},
		{khaosRefKey("Khaos"), "khaos"},
		{khaosRefKey("#"), ""},
		{khaosMarkdownTable([][]string{{"", "a"}, {"x", "1"}}), "|  | a |\n|---|---|\n| x | 1 |\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if !khaosFalling([]float64{3, 2, 1}) || khaosFalling([]float64{3, 2, 2}) || khaosFalling([]float64{1, 2}) {
		t.Error("khaosFalling")
	}
}

func TestKhaosRefNumber(t *testing.T) {
	for cell, want := range map[string]float64{"−0.00081438": -0.00081438, "0.2817 (0.2630)": 0.2817, "205 (pred 202)": 205, "274.716": 274.716} {
		if got, err := khaosRefNumber(cell); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", cell, got, err, want)
		}
	}
	for _, cell := range []string{"", "–", "n/a"} {
		if _, err := khaosRefNumber(cell); err == nil {
			t.Errorf("%q: no error", cell)
		}
	}
}

// TestRefTable reads a reference table the way the Khaos blocks do.
func TestRefTable(t *testing.T) {
	const doc = "# R\n\n**Per-failure measurements** [data]: …\n\n" +
		"| # | Khaos | CI 10 s |\n|---|---|---|\n" +
		"| 1 | 56.9/442/205 (pred 202) | 57.1/562/122 |\n" +
		"| 2 | 60.4/506/210 (pred 215) | 60.5/580/114 |\n" +
		"| median recovery [derived] | 207.5 | 118 |\n\n" +
		"**24 h latency series**\n\n| | CI 10 s | Khaos |\n|---|---|---|\n| mean (ms) | 691.0 | −653.1 |\n"
	tab, err := refTableAfter(doc, "**Per-failure measurements**")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tab.recoveries()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]float64{"khaos": {205, 210}, "static 10": {122, 114}}; !reflect.DeepEqual(recs, want) {
		t.Errorf("recoveries %v, want %v", recs, want)
	}
	lat, err := refTableAfter(doc, "**24 h latency series**")
	if err != nil {
		t.Fatal(err)
	}
	if cell, err := lat.cell("mean (ms)", "Khaos"); err != nil || cell != "−653.1" {
		t.Errorf("cell %q, %v", cell, err)
	}
	if _, err := lat.cell("median (ms)", "Khaos"); err == nil {
		t.Error("a missing row is no error")
	}
	if _, err := refTableAfter(doc, "**Nothing**"); err == nil {
		t.Error("a missing anchor is no error")
	}
	if _, err := refTableAfter("x\n| a | b |\n|---|---|\n| 1 |\n", "x"); err == nil {
		t.Error("a short row is no error")
	}
}

func TestKhaosReadCSV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "variants.csv")
	if err := os.WriteFile(p, []byte("variant,ci_changes,x\nkhaos,17700:19,1.5\nyoung,60:90.9;120:123.9,2\nci10,,bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := khaosReadCSV(p)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%v, %v", rows, err)
	}
	if got := rows[0].changes("ci_changes"); !reflect.DeepEqual(got, []khaosCIChange{{17700, 19}}) || rows[0].number("x") != 1.5 || rows[0].err != nil {
		t.Errorf("row 1: %v, %v", got, rows[0].err)
	}
	if got := rows[1].changes("ci_changes"); !reflect.DeepEqual(got, []khaosCIChange{{60, 90.9}, {120, 123.9}}) {
		t.Errorf("row 2: %v", got)
	}
	if got := rows[2].changes("ci_changes"); got != nil || rows[2].err != nil {
		t.Errorf("row 3: %v, %v", got, rows[2].err)
	}
	if x := rows[2].number("x"); !math.IsNaN(x) && rows[2].err == nil {
		t.Error("a bad number is no error")
	}
	rows[0].text("nope")
	if rows[0].err == nil {
		t.Error("a missing column is no error")
	}
}

func TestKhaosVariantText(t *testing.T) {
	k := khaosVariant{Policy: "khaos", CIS: 119, Reconfigurations: 1, Changes: []khaosCIChange{{17700, 19}}}
	y := khaosVariant{Policy: "young", CIS: 60, Reconfigurations: 4, Changes: []khaosCIChange{{60, 90.9}, {120, 123.9}, {180, 114}, {19020, 94.32}}}
	s := khaosVariant{Policy: "static", CIS: 10}
	for _, tc := range []struct{ got, want string }{
		{k.label(), "Khaos"}, {y.label(), "Young"}, {s.label(), "CI 10 s"},
		{k.key(), "khaos"}, {s.key(), "static 10"},
		{k.path(), "119 → 19 s"}, {y.path(), "60 → 90.9 → … → 94.32 s"},
		{k.reconfigurations(), "1 (119 → 19 s)"}, {y.reconfigurations(), "4 (60 → … → 94.32 s)"}, {s.reconfigurations(), "0"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	m := khaosMeasured{RecoveriesS: []float64{241, 100, 300, 200}}
	if m.over(240) != 2 || m.median() != 220.5 || m.mean() != 210.25 || m.RecoveriesS[0] != 241 {
		t.Errorf("measured: %d, %v, %v, %v", m.over(240), m.median(), m.mean(), m.RecoveriesS)
	}
}

func TestWrapBullets(t *testing.T) {
	in := "- one two three\n  four `five six`\n- seven"
	if got, want := wrap(in, 14), "- one two\n  three four\n  `five six`\n- seven"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := wrap("- a verylongwordthatdoesnotfit b", 10), "- a\n  verylongwordthatdoesnotfit\n  b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWrapGlued(t *testing.T) {
	if got, want := wrap("- has 7 / 8 and 119 → 19 s here", 8), "- has 7 / 8\n  and\n  119 → 19 s\n  here"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
