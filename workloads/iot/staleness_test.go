package iot

import (
	"math"
	"strings"
	"testing"
)

// On a single 90 m road, a trip at 70–79 km/h (19.4–21.9 m/s) reports
// exactly 5 positions, 1 s apart (offsets 0 … 4·s < 90 m), and every window
// over its positions averages its speed. Its results are then, by hand:
// the windows ending 1 s after positions 2, 3, 4, 5 (gap 1 s, 4 results),
// and, after the trip ends, the windows ending 2, 3 and 4 s after position
// 5, which still hold ≥ 2 positions (1 result each). Slower trips yield
// nothing. So gaps 1, 2, 3, 4 s come in the ratio 4 : 1 : 1 : 1 whatever
// the mix of trips. The road lies at the equator and the meridian, where
// float32 coordinates are exact to micrometres.
func TestResultStalenessByHand(t *testing.T) {
	g, err := LoadGraph(strings.NewReader(`{"nodes":[{"id":"a","latitude":0.0001,"longitude":0.0001},{"id":"b","latitude":0.00090939,"longitude":0.0001}],
		"edges":[{"source":"a","target":"b"},{"source":"b","target":"a"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ResultStaleness(g, 3, 10, 10, 3000)
	if err != nil {
		t.Fatal(err)
	}
	want := []Staleness{{1, 4.0 / 7}, {2, 1.0 / 7}, {3, 1.0 / 7}, {4, 1.0 / 7}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want gaps 1–4 s", got)
	}
	for i := range want {
		// Off by < 0.01: trips cut by the start or end of the measurement,
		// and trips at exactly 70 km/h, whose windows average 70 ± 1e-5 and
		// so pass the speed filter in some windows and not in others.
		if got[i].GapS != want[i].GapS || math.Abs(got[i].Share-want[i].Share) > 0.01 {
			t.Errorf("level %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
