package suggest

import "strings"

// Typo returns the known name nearest to name if it is close enough to be
// a typo: at most 2 edits (letters swapped count as one), and at most one
// per three letters, ignoring case; "" if none is.
func Typo(name string, known []string) string {
	limit := min(2, len([]rune(name))/3)
	best, bestD := "", limit+1
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Closest returns up to n known names that name may have meant, best
// first, ignoring case: the name itself in another case; the names it
// begins (recovery → recovery_mean_s, recovery_median_s, …) or that begin
// it (recovery_mean_sec → recovery_mean_s); the names that contain it
// (p99 → latency_p99_ms, rate → workload.rate); then a typo (Typo). Within
// each kind the names keep known's order. None for an empty name.
func Closest(name string, known []string, n int) []string {
	if name == "" || n < 1 {
		return nil
	}
	lower := strings.ToLower(name)
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] && len(out) < n {
			seen[k] = true
			out = append(out, k)
		}
	}
	tiers := []func(k string) bool{
		func(k string) bool { return k == lower },
		func(k string) bool {
			return strings.HasPrefix(k, lower) || len(k) >= 3 && strings.HasPrefix(lower, k)
		},
		func(k string) bool { return len(lower) >= 2 && strings.Contains(k, lower) },
	}
	for _, match := range tiers {
		for _, k := range known {
			if match(strings.ToLower(k)) {
				add(k)
			}
		}
	}
	if t := Typo(name, known); t != "" {
		add(t)
	}
	return out
}

// DidYouMean is "did you mean a?", "did you mean a or b?" or "did you mean
// a, b or c?"; "" for no names.
func DidYouMean(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "did you mean " + names[0] + "?"
	}
	return "did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

// editDistance is the optimal-string-alignment Damerau–Levenshtein
// distance: insertions, deletions, substitutions and adjacent swaps.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
