package figures

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// A sampler that transmitted nothing is ticked "0" a decade left of the
// smallest share; a log tick whose label would run into it loses its label.
func TestZeroTicks(t *testing.T) {
	ts := zeroTicks{Ticker: logTicks{}, zero: 0.3}.Ticks(0.25, 130)
	labels := map[float64]string{}
	for _, tk := range ts {
		if tk.Label != "" {
			labels[tk.Value] = tk.Label
		}
	}
	if labels[0.3] != "0" || labels[10] != "10" || labels[100] != "100" || labels[1] == "" {
		t.Errorf("labels %v", labels)
	}
	near := zeroTicks{Ticker: logTicks{}, zero: 0.4}.Ticks(0.3, 130)
	for _, tk := range near {
		if tk.Value == 1 && tk.Label != "" {
			t.Errorf("tick 1 labelled %q beside 0 at 0.4", tk.Label)
		}
	}
	if ts := (zeroTicks{Ticker: logTicks{}}).Ticks(1, 100); len(ts) == 0 || ts[len(ts)-1].Label == "0" {
		t.Errorf("no zero: %v", ts)
	}
}

func TestPlotTradeoffZeroShare(t *testing.T) {
	rows := []results.TradeoffRow{
		{Sampler: "fixed", Param: 5, Metric: "cpu", BytesShare: 0.2, MAPE: 3},
		{Sampler: "fixed", Param: 1, Metric: "cpu", BytesShare: 1, MAPE: 0},
		{Sampler: "forecast", Param: 0.1, Metric: "cpu", BytesShare: 0, MAPE: 9},
	}
	base := filepath.Join(t.TempDir(), "tradeoff")
	files, err := PlotTradeoff(base, "t", rows)
	if err != nil || len(files) == 0 {
		t.Fatalf("%v, %v", files, err)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() == 0 {
		t.Errorf("%s: %v", files[0], err)
	}
}
