package hostmetrics

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"
)

// FitResult is a relation fitted on the first part of a measured series and
// judged on the rest, beside the baseline that ignores the load.
type FitResult struct {
	Relation
	// HeldOutMAPE is the relation's error on the held-out part (%, noise
	// excluded: the prediction is intercept + slope·load(t − lag));
	// BaselineMAPE that of the fitted part's mean; NaN when the held-out
	// metric is 0 throughout.
	HeldOutMAPE, BaselineMAPE float64
	Fitted, HeldOut           int // seconds in each part
}

// FitHeldOut fits name's relation to load (Fit, lags up to maxLag) on the
// first 1 − holdout of the seconds and reports its error on the rest.
func FitHeldOut(name string, load, metric []float64, maxLag int, holdout float64) (FitResult, error) {
	if !(holdout > 0 && holdout < 1) {
		return FitResult{}, fmt.Errorf("hostmetrics: holdout %g: must be in (0, 1)", holdout)
	}
	cut := int(float64(len(load)) * (1 - holdout))
	r, err := Fit(name, load[:cut], metric[:cut], maxLag)
	if err != nil {
		return FitResult{}, err
	}
	mean := stat.Mean(finite(metric[:cut]), nil)
	res := FitResult{Relation: r, Fitted: cut, HeldOut: len(load) - cut}
	lag := int(r.Lag)
	var e, eb float64
	n := 0
	for t := max(cut, lag); t < len(load); t++ {
		y, x := metric[t], load[t-lag]
		if math.IsNaN(y) || math.IsNaN(x) || y == 0 {
			continue
		}
		e += math.Abs(y-(r.Intercept+r.Slope*x)) / math.Abs(y)
		eb += math.Abs(y-mean) / math.Abs(y)
		n++
	}
	res.HeldOutMAPE, res.BaselineMAPE = math.NaN(), math.NaN() // a metric that stayed 0 has no relative error
	if n > 0 {
		res.HeldOutMAPE, res.BaselineMAPE = 100*e/float64(n), 100*eb/float64(n)
	}
	return res, nil
}

func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// Metrics of a measured table (results.HostMeasuredColumns) and the units
// their relations are in.
var measuredUnits = map[string]string{"cpu_pct": "%", "mem_pct": "%", "disk_read_bps": "B/s",
	"disk_write_bps": "B/s", "net_rx_bps": "B/s", "net_tx_bps": "B/s"}

// FitTable fits every metric column of a measured table present in cols
// (FitHeldOut), in the table's column order.
func FitTable(cols map[string][]float64, load []float64, maxLag int, holdout float64) ([]FitResult, error) {
	var out []FitResult
	for _, name := range []string{"cpu_pct", "mem_pct", "disk_read_bps", "disk_write_bps", "net_rx_bps", "net_tx_bps"} {
		m, ok := cols[name]
		if !ok {
			continue
		}
		r, err := FitHeldOut(name, load, m, maxLag, holdout)
		if err != nil {
			return nil, err
		}
		r.Unit = measuredUnits[name]
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hostmetrics: the table has no metric column (%v)", []string{"cpu_pct", "mem_pct", "disk_read_bps", "disk_write_bps", "net_rx_bps", "net_tx_bps"})
	}
	return out, nil
}

// WriteFits prints the fits as a table and as a monitoring.metrics block.
func WriteFits(w io.Writer, fits []FitResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tintercept\tslope\tlag\tsd\tR²\theld-out MAPE\tbaseline (mean) MAPE\tfitted / held-out s")
	for _, f := range fits {
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%v\t%.3g\t%.3f\t%.2f %%\t%.2f %%\t%d / %d\n", f.Name, f.Intercept, f.Slope, f.Lag, f.SD, f.R2, f.HeldOutMAPE, f.BaselineMAPE, f.Fitted, f.HeldOut)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nmonitoring:\n  metrics:")
	for _, f := range fits {
		fmt.Fprintf(w, "    - {name: %s, unit: %q, intercept: %.6g, slope: %.6g, lag: %v, sd: %.4g}\n", f.Name, f.Unit, f.Intercept, f.Slope, f.Lag, f.SD)
	}
	return nil
}
