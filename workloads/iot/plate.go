package iot

import (
	"math/rand/v2"
	"strconv"
)

// Licence-plate shape of genRandomLP (docs/reference/workloads.md §2.3).
const (
	plateLetters   = 25   // nextInt(25) ⇒ 'A'..'Y', never 'Z'
	plateExtraP100 = 49   // each optional letter is present with p = 49/100
	plateNumbers   = 9999 // integer 0..9998, no padding
	plateEP10000   = 126  // 'E' suffix with p = 126/10000
)

// MaxPlateLen is the longest plate genRandomLP can produce: "AAA-AA 9998E".
const MaxPlateLen = 3 + 1 + 2 + 1 + 4 + 1

// appendPlate appends a random plate: 1–3 letters, '-', 1–2 letters, ' ',
// 0–9998, optional 'E'. The 2nd and 3rd letter of the first group are drawn
// independently (p = 0.49 each); the reference gives no probability for the
// 2nd letter of the second group, so it uses the same 0.49.
func appendPlate(dst []byte, r *rand.Rand) []byte {
	letter := func() byte { return 'A' + byte(r.IntN(plateLetters)) }
	dst = append(dst, letter())
	for range 2 {
		if r.IntN(100) < plateExtraP100 {
			dst = append(dst, letter())
		}
	}
	dst = append(dst, '-', letter())
	if r.IntN(100) < plateExtraP100 {
		dst = append(dst, letter())
	}
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(r.IntN(plateNumbers)), 10)
	if r.IntN(10000) < plateEP10000 {
		dst = append(dst, 'E')
	}
	return dst
}
