package textfmt

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteAligned prints rows (the first is the header) with every column
// padded to its widest cell, two spaces apart; right-aligned columns
// (numbers) are padded on the left, header included.
func WriteAligned(w io.Writer, rows [][]string, right []bool) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
