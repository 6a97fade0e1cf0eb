package compare

// Comparing two result sets figure by figure (streamtwin compare, and the
// regression references in results/reference/).
//
// A result set is any of
//
//   - a run folder (it holds summary.json): one run;
//   - a folder of run folders (a scenario with variants, or a sweep's runs/):
//     one run per sub-folder, keyed by the folder name;
//   - a sweep folder (it holds runs.parquet) or a runs.parquet file: one run
//     per row, keyed by run_id;
//   - a JSON file: a single summary.json-format summary, or a reference file
//     {"format": "streamtwin-reference/1", "scenario": …, "runs": {"<key>":
//     <summary>, …}} (see results/reference/README.md).
//
// A single summary (run folder, summary file) is keyed by its variant, or by
// its scenario name when it has none. When both sides hold exactly one run the
// two are compared whatever their keys; otherwise runs are matched by key.
//
// Figures are the numbers of a summary: the JSON names, qos.* as qos_*,
// without seed, wall_time_s and the list of recovery times (the same set and
// order as Figures). Summaries are read generically, not into Summary, so a
// figure that only one side has (a file written by another version) shows up
// as such instead of as a silent 0.
//
// Tolerance: B is within tolerance of the baseline A when
//
//	|B − A| ≤ max(abs, rel·|A|, AbsFloor)
//
// with a relative slack of 1e-12 on the bound for floating-point rounding, so
// a difference exactly at the tolerance is within it: a 5% shift passes
// --rel 0.05 and fails --rel 0.049. AbsFloor (1e-6) keeps figures at or near
// 0 from failing on rounding noise: figures are in s, ms, records, records/s
// or fractions, where 1e-6 is far below anything meaningful yet above the
// float noise of record counts in the 1e8–1e9 range (a final_lag of 6e-8). NaN equals NaN; NaN against a number, or
// an infinity against anything else, is beyond any tolerance.
//
// A tolerance file may mark a figure informational: it is compared and
// printed, but never beyond tolerance (a figure one side does not claim to
// predict, such as the twin's latency tail against a live run's; see
// TwinVsLiveTolerances).

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

const (
	// DefaultRel is the default relative tolerance of a comparison (5%).
	DefaultRel = 0.05
	// AbsFloor is the absolute difference up to which two figures are always
	// within tolerance, whatever the tolerance says.
	AbsFloor = 1e-6
	// ReferenceFormat identifies a reference file.
	ReferenceFormat = "streamtwin-reference/1"

	// cmpBoundSlack absorbs rounding at the boundary (x·1.05 − x is not
	// exactly 0.05·x in floating point).
	cmpBoundSlack = 1e-12
	// cmpIgnored is never compared: the one value that differs between two
	// runs of the same scenario and seed.
	cmpIgnored = "wall_time_s"

	// TwinVsLiveTolerances is the agreement the project claims between a
	// twin run and a live run of the same scenario, figure by figure
	// (relative to the repository's root).
	TwinVsLiveTolerances = "results/reference/live/twin-vs-live.yaml"
	// informational is the tolerance file's word for a figure that is
	// reported and never fails.
	informational = "informational"
)

// FigureDiff is one (run, figure) of a comparison.
type FigureDiff struct {
	Run, Figure string
	A, B        float64
	InA, InB    bool    // false: the figure is on the other side only
	Abs, Rel    float64 // B − A and (B − A)/|A|
	Tol         Tolerance
	Beyond      bool
}

// Status is "same", "ok" (within tolerance), "info" (an informational
// figure that differs), "BEYOND", "only in A" or "only in B".
func (d FigureDiff) Status() string {
	switch {
	case !d.InB:
		return "only in A"
	case !d.InA:
		return "only in B"
	case d.Beyond:
		return "BEYOND"
	case d.A == d.B || math.IsNaN(d.A) && math.IsNaN(d.B):
		return "same"
	case d.Tol.Informational:
		return "info"
	}
	return "ok"
}

// Comparison is the result of Compare.
type Comparison struct {
	A, B *ResultSet
	// Diffs has every figure of every matched run, in A's run order.
	Diffs                []FigureDiff
	RunsOnlyA, RunsOnlyB []string
	// Notes are identity mismatches of matched sweep rows (seed, parameters).
	Notes []string
	// Compared counts (run, figure) pairs present on both sides; Beyond those
	// beyond tolerance; Informational those compared without a tolerance
	// (never beyond it); OneSided the figures and runs on one side only.
	Compared, Beyond, Informational, OneSided int
}

// Failed: something is beyond tolerance or, when strict, something is on
// one side only.
func (c *Comparison) Failed(strict bool) bool {
	return c.Beyond > 0 || strict && c.OneSided > 0
}

// Compare matches the runs of a and b and compares every common figure. It
// fails when there is nothing to compare (no run or no figure in common).
func Compare(a, b *ResultSet, tol Tolerances) (*Comparison, error) {
	c := &Comparison{A: a, B: b}
	type pair struct{ a, b *SetRun }
	var pairs []pair
	if len(a.Runs) == 1 && len(b.Runs) == 1 {
		pairs = append(pairs, pair{&a.Runs[0], &b.Runs[0]})
	} else {
		byKey := map[string]*SetRun{}
		for i := range b.Runs {
			byKey[b.Runs[i].Key] = &b.Runs[i]
		}
		matched := map[string]bool{}
		for i := range a.Runs {
			if rb, ok := byKey[a.Runs[i].Key]; ok {
				pairs = append(pairs, pair{&a.Runs[i], rb})
				matched[rb.Key] = true
			} else {
				c.RunsOnlyA = append(c.RunsOnlyA, a.Runs[i].Key)
			}
		}
		for _, r := range b.Runs {
			if !matched[r.Key] {
				c.RunsOnlyB = append(c.RunsOnlyB, r.Key)
			}
		}
	}
	c.OneSided = len(c.RunsOnlyA) + len(c.RunsOnlyB)
	for _, p := range pairs {
		key := p.a.Key
		for _, name := range p.a.ParamOrder {
			if vb, ok := p.b.Params[name]; ok && vb != p.a.Params[name] {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: %s differs (A %s, B %s)", key, name, p.a.Params[name], vb))
			}
		}
		names := append([]string(nil), p.a.Figures...)
		for _, n := range p.b.Figures {
			if _, ok := p.a.Values[n]; !ok {
				names = append(names, n)
			}
		}
		sortFigures(names)
		for _, n := range names {
			if n == cmpIgnored {
				continue
			}
			va, inA := p.a.Values[n]
			vb, inB := p.b.Values[n]
			d := FigureDiff{Run: key, Figure: n, A: va, B: vb, InA: inA, InB: inB, Tol: tol.For(n)}
			if inA && inB {
				c.Compared++
				if d.Tol.Informational {
					c.Informational++
				}
				d.Abs, d.Rel = vb-va, relDiff(va, vb)
				if d.Beyond = !d.Tol.Within(va, vb); d.Beyond {
					c.Beyond++
				}
			} else {
				c.OneSided++
			}
			c.Diffs = append(c.Diffs, d)
		}
	}
	if c.Compared == 0 {
		return nil, fmt.Errorf("nothing to compare: %s and %s have no run and figure in common (A runs: %s; B runs: %s)",
			a.Path, b.Path, runKeys(a), runKeys(b))
	}
	return c, nil
}

// TwinVsLive reports whether one side holds twin runs and the other live
// runs (summary.json's backend "sim" and "live"), the comparison whose
// claimed tolerances are TwinVsLiveTolerances.
func TwinVsLive(a, b *ResultSet) bool {
	has := func(s *ResultSet, backend string) bool {
		for _, r := range s.Runs {
			if r.Backend == backend {
				return true
			}
		}
		return false
	}
	return has(a, "sim") && has(b, "live") || has(a, "live") && has(b, "sim")
}

func relDiff(a, b float64) float64 {
	switch {
	case a == b || math.IsNaN(a) && math.IsNaN(b):
		return 0
	case a == 0:
		return math.Copysign(math.Inf(1), b)
	}
	return (b - a) / math.Abs(a)
}

func runKeys(s *ResultSet) string {
	var ks []string
	for i, r := range s.Runs {
		if i == 8 {
			ks = append(ks, "… "+textfmt.Count(float64(len(s.Runs)-i))+" more")
			break
		}
		ks = append(ks, cmp.Or(r.Key, `""`))
	}
	return strings.Join(ks, ", ")
}

// Verdict is the final line: "N figures compared, M beyond tolerance",
// plus what is on one side only.
func (c *Comparison) Verdict(strict bool) string {
	s := textfmt.Plural(c.Compared, "figure") + " compared, " + textfmt.Count(float64(c.Beyond)) + " beyond tolerance"
	if c.Informational > 0 {
		s += "; " + textfmt.Count(float64(c.Informational)) + " informational (reported, never beyond tolerance)"
	}
	if c.OneSided > 0 {
		s += "; " + textfmt.Count(float64(c.OneSided)) + " on one side only"
		if strict {
			s += " (a failure with --strict)"
		} else {
			s += " (not a failure without --strict)"
		}
	}
	return s
}

// WriteTable prints the comparison as an aligned table: the runs and
// figures that differ or are on one side only (all figures with all), then
// the notes and the verdict line.
func (c *Comparison) WriteTable(w io.Writer, all, strict bool) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "A: %s (%s, %s)\n", c.A.Path, c.A.Kind, textfmt.Plural(len(c.A.Runs), "run"))
	fmt.Fprintf(bw, "B: %s (%s, %s)\n", c.B.Path, c.B.Kind, textfmt.Plural(len(c.B.Runs), "run"))
	rows := [][]string{{"RUN", "FIGURE", "A", "B", "B-A", "REL", "TOL", "STATUS"}}
	for _, d := range c.Diffs {
		st := d.Status()
		if !all && st == "same" {
			continue
		}
		row := []string{d.Run, d.Figure, "-", "-", "", "", "", st}
		// A, B and B − A are read against the figure's magnitude, so the
		// float noise of a record count (a final_lag of 6e-08) shows as 0.
		scale := textfmt.Scale(d.A, d.B)
		if d.InA {
			row[2] = textfmt.Figure(d.Figure, d.A, scale)
		}
		if d.InB {
			row[3] = textfmt.Figure(d.Figure, d.B, scale)
		}
		if d.InA && d.InB {
			row[4], row[5] = ChangeCells(d.Figure, d.Abs, d.Rel, scale)
			row[6] = d.Tol.Cell(d.Figure)
		}
		rows = append(rows, row)
	}
	for _, k := range c.RunsOnlyA {
		rows = append(rows, []string{k, "*", "", "", "", "", "", "run only in A"})
	}
	for _, k := range c.RunsOnlyB {
		rows = append(rows, []string{k, "*", "", "", "", "", "", "run only in B"})
	}
	if len(rows) > 1 {
		textfmt.WriteAligned(bw, rows, []bool{false, false, true, true, true, true, false, false})
	}
	for _, n := range c.Notes {
		fmt.Fprintln(bw, "note:", n)
	}
	fmt.Fprintln(bw, c.Verdict(strict))
	return bw.Flush()
}

// ChangeCells are the cells of a figure's change, as compare's B−A and REL
// columns and check's CHANGE and REL show them: abs (B − A) in the
// figure's format at scale, and rel (a fraction) in percent. A change from
// 0 has no relative size: rel is "–" and abs says it all; a change that
// shows as 0 is 0%, whatever its relative size in floating point.
func ChangeCells(figure string, abs, rel, scale float64) (absCell, relCell string) {
	if textfmt.IsCount(figure) {
		absCell = textfmt.SignedCount(abs)
	} else {
		absCell = textfmt.Signed(abs, scale)
	}
	switch {
	case absCell == "0":
		return absCell, "0%"
	case math.IsNaN(rel) || math.IsInf(rel, 0):
		return absCell, textfmt.NoValue
	}
	return absCell, textfmt.Signed(rel*100, 0) + "%"
}
