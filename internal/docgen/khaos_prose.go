package docgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

// A khaosComparison sorts the static variants by whether a figure of Khaos is
// below, level with or above theirs.
type khaosComparison struct{ below, level, above []khaosVariant }

func khaosCompare(k khaosVariant, statics []khaosVariant, f func(khaosVariant) float64) khaosComparison {
	var c khaosComparison
	for _, s := range statics {
		switch x, y := f(k), f(s); {
		case math.IsNaN(x) || math.IsNaN(y):
		case x < y:
			c.below = append(c.below, s)
		case x == y:
			c.level = append(c.level, s)
		default:
			c.above = append(c.above, s)
		}
	}
	return c
}

// describe: "below static 10 and 90 s (659.7 / 634.7 ms) and above static
// 30 s (612.2 ms)", for a latency.
func (c khaosComparison) describe(f func(khaosVariant) float64) string {
	num := func(x float64) string { return textfmt.Number(x, 0) }
	var parts []string
	for _, p := range []struct {
		word string
		vs   []khaosVariant
	}{{"below", c.below}, {"level with", c.level}, {"above", c.above}} {
		if len(p.vs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s ms)", p.word, khaosStaticList(p.vs), khaosValues(p.vs, f, num)))
		}
	}
	return khaosAnd(parts)
}

// describeCounts: "fewer than static 60 and 90 s (2 / 4), as many as
// static 10 s", for counts.
func (c khaosComparison) describeCounts(f func(khaosVariant) float64) string {
	var parts []string
	for _, p := range []struct {
		word string
		vs   []khaosVariant
	}{{"fewer than", c.below}, {"as many as", c.level}, {"more than", c.above}} {
		if len(p.vs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", p.word, khaosStaticList(p.vs), khaosValues(p.vs, f, textfmt.Count)))
		}
	}
	return khaosAnd(parts)
}

// against: "1 against 4 / 6 / 8".
func khaosAgainst(k khaosVariant, vs []khaosVariant, f func(khaosVariant) float64, format func(float64) string) string {
	return format(f(k)) + " against " + khaosValues(vs, f, format)
}

func khaosValues(vs []khaosVariant, f func(khaosVariant) float64, format func(float64) string) string {
	var out []string
	for _, v := range vs {
		out = append(out, format(f(v)))
	}
	return strings.Join(out, " / ")
}

// staticList: "static 60, 90 and 120 s".
func khaosStaticList(vs []khaosVariant) string {
	var cis []string
	for _, v := range vs {
		cis = append(cis, khaosShort(v.CIS))
	}
	return "static " + khaosAnd(cis) + " s"
}

// khaosAndList joins "a", "a and b", "a, b and c".
func khaosAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func khaosTimes(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// khaosFalling reports whether xs strictly decreases.
func khaosFalling(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] >= xs[i-1] {
			return false
		}
	}
	return true
}

// khaosShort is textfmt.Number without trailing zeros after the point, for
// checkpoint intervals and bounds that are mostly whole seconds: 119, 19,
// 94.32, 0.5.
func khaosShort(x float64) string {
	s := textfmt.Number(x, 0)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// khaosClock formats seconds since the run start as h:mm:ss.
func khaosClock(s float64) string {
	t := int(math.Round(s))
	return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
}

// khaosMarkdownTable writes rows (the header first) as a markdown table.
func khaosMarkdownTable(rows [][]string) string {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", len(r)) + "|\n")
		}
	}
	return b.String()
}
