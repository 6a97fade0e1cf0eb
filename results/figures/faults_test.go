package figures

import (
	"math"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// TestRecoveryStrip: a fault zoom's strip lists the runs fastest first (on
// top), the unrecovered last, each labelled with its name and time, and
// titles the fault with its time as the evaluation tables print it.
func TestRecoveryStrip(t *testing.T) {
	rows := []recoveryRow{
		{label: "slow", style: styleOf(0), fault: measure.FaultRecovery{AtS: 100, RecoveryS: 300}},
		{label: "never", style: styleOf(1), fault: measure.FaultRecovery{AtS: 100, RecoveryS: math.NaN(), UnrecoveredS: 500}},
		{label: "fast", style: styleOf(2), fault: measure.FaultRecovery{AtS: 100, RecoveryS: 120}},
	}
	p := recoveryStrip(rows, -120, 620, nil)
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	var top2bottom []string
	for i := len(ticks) - 1; i >= 0; i-- {
		top2bottom = append(top2bottom, ticks[i].Label)
	}
	want := []string{"fast 120 s", "slow 300 s", "never > 500 s"}
	if strings.Join(top2bottom, "|") != strings.Join(want, "|") {
		t.Errorf("strip rows %q, want %q", top2bottom, want)
	}
	for _, c := range []struct {
		s    float64
		want string
	}{{3.4411 * 3600, "3:26:28"}, {59, "0:00:59"}, {36000, "10:00:00"}} {
		if got := textfmt.Clock(c.s); got != c.want {
			t.Errorf("textfmt.Clock(%g) = %q, want %q", c.s, got, c.want)
		}
	}
}
