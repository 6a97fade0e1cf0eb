package docgen

import (
	"strings"
	"unicode/utf8"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The prose helpers of every generated block: numbers by the one format of
// docs/results.md, and one line wrapper.

// num formats a number in prose: the table rule of docs/results.md (4
// significant digits, thousands separated) without the trailing zeros a
// column keeps for alignment (240, not 240.0).
func num(x float64) string {
	s := textfmt.Number(x, 0)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// seconds is num with the unit s.
func seconds(x float64) string { return num(x) + " s" }

// percent is a share as a percentage in prose.
func percent(share float64) string { return num(100*share) + " %" }

// andList joins "a", "a and b", "a, b and c".
func andList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// wrap refills text to lines of at most width characters where the words
// allow, paragraph by paragraph (paragraphs end at a blank line). A
// paragraph that starts with a table row is left as it is; a line starting
// with "- " starts a bullet, whose continuation lines are indented by two.
// A number stays with its unit and "/" or "→" with their neighbours
// ("4 / 6", "119 → 19 s").
func wrap(text string, width int) string {
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		if strings.HasPrefix(strings.TrimSpace(p), "|") {
			continue
		}
		var items []string
		for _, l := range strings.Split(p, "\n") {
			if strings.HasPrefix(l, "- ") || len(items) == 0 {
				items = append(items, l)
			} else {
				items[len(items)-1] += " " + strings.TrimSpace(l)
			}
		}
		var out []string
		for _, item := range items {
			indent := ""
			if strings.HasPrefix(item, "- ") {
				indent = "  "
			}
			line, prev := "", ""
			for _, w := range strings.Fields(item) {
				switch {
				case line == "":
					line = w
				case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width && !glued(prev, w):
					out = append(out, line)
					line = indent + w
				default:
					line += " " + w
				}
				prev = w
			}
			out = append(out, line)
		}
		paras[i] = strings.Join(out, "\n")
	}
	return strings.Join(paras, "\n\n")
}

// glued tells words that must stay on one line: a unit after its number,
// and the neighbours of "/" and "→".
func glued(a, b string) bool {
	unit := strings.TrimRight(b, ".,;:)")
	return a == "/" || a == "→" || b == "/" || b == "→" || unit == "ms" || unit == "s" || unit == "h" || unit == "%"
}
