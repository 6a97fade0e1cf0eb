package hostmetrics

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/results/textfmt"
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

// Measured are the metric columns of a measured table
// (ingest.HostMeasuredColumns, make live-host-profile): their units, their
// PromQL ($job: node or node-truth, live/prometheus), the node-exporter
// families behind them and the bytes one scrape of those families
// transmits (measured on node-exporter 1.5.0, 2 CPUs; the network
// families count 4 devices: eth0, lo and two ifb).
var Measured = []Relation{
	{Name: "cpu_pct", Unit: "%", Bytes: 930, Query: `100 * (1 - avg(irate(node_cpu_seconds_total{mode="idle",job="$job"}[10m])))`,
		Families: []string{"node_cpu_seconds_total"}},
	{Name: "mem_pct", Unit: "%", Bytes: 334, Query: `100 * (1 - sum(node_memory_MemAvailable_bytes{job="$job"}) / sum(node_memory_MemTotal_bytes{job="$job"}))`,
		Families: []string{"node_memory_MemAvailable_bytes", "node_memory_MemTotal_bytes"}},
	{Name: "disk_read_bps", Unit: "B/s", Bytes: 225, Query: `sum(irate(node_disk_read_bytes_total{job="$job"}[10m]))`,
		Families: []string{"node_disk_read_bytes_total"}},
	{Name: "disk_write_bps", Unit: "B/s", Bytes: 240, Query: `sum(irate(node_disk_written_bytes_total{job="$job"}[10m]))`,
		Families: []string{"node_disk_written_bytes_total"}},
	{Name: "net_rx_bps", Unit: "B/s", Bytes: 355, Query: `sum(irate(node_network_receive_bytes_total{job="$job"}[10m]))`,
		Families: []string{"node_network_receive_bytes_total"}},
	{Name: "net_tx_bps", Unit: "B/s", Bytes: 360, Query: `sum(irate(node_network_transmit_bytes_total{job="$job"}[10m]))`,
		Families: []string{"node_network_transmit_bytes_total"}},
}

// measured is the column of Measured named name.
func measured(name string) Relation {
	for _, m := range Measured {
		if m.Name == name {
			return m
		}
	}
	panic("hostmetrics: no measured column " + name)
}

// FitTable fits every metric column of a measured table present in cols
// (FitHeldOut), in the table's column order; each fit carries its
// column's unit, live query, families and bytes.
func FitTable(cols map[string][]float64, load []float64, maxLag int, holdout float64) ([]FitResult, error) {
	var out []FitResult
	var names []string
	for _, col := range Measured {
		names = append(names, col.Name)
		m, ok := cols[col.Name]
		if !ok {
			continue
		}
		r, err := FitHeldOut(col.Name, load, m, maxLag, holdout)
		if err != nil {
			return nil, err
		}
		r.Unit, r.Query, r.Families, r.Bytes = col.Unit, col.Query, col.Families, col.Bytes
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hostmetrics: the table has no metric column (%v)", names)
	}
	return out, nil
}

// WriteFits prints the fits as a table and as a monitoring.metrics block.
func WriteFits(w io.Writer, fits []FitResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tintercept\tslope\tlag\tsd\tR²\theld-out MAPE\tbaseline (mean) MAPE\tfitted / held-out s")
	for _, f := range fits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s %%\t%s %%\t%s / %s\n", f.Name, textfmt.Coefficient(f.Intercept), textfmt.Coefficient(f.Slope), f.Lag, textfmt.Number(f.SD, 0), textfmt.Number(f.R2, 0), textfmt.Number(f.HeldOutMAPE, 0), textfmt.Number(f.BaselineMAPE, 0), textfmt.Count(float64(f.Fitted)), textfmt.Count(float64(f.HeldOut)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nmonitoring:\n  metrics:")
	for _, f := range fits {
		clamp := ""
		if f.Unit == "%" {
			clamp = " max: 100,"
		}
		fmt.Fprintf(w, "    - {name: %s, unit: %q, intercept: %s, slope: %s, lag: %v, sd: %s,%s bytes: %s,\n       query: '%s', families: [%s]}\n",
			f.Name, f.Unit, textfmt.Plain(f.Intercept, 6), textfmt.Plain(f.Slope, 6), f.Lag, textfmt.Plain(f.SD, 4), clamp, textfmt.Plain(f.Bytes, 6), f.Query, strings.Join(f.Families, ", "))
	}
	return nil
}
