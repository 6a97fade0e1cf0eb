package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// Files of a run with a monitoring section (issue 23).
const (
	TradeoffCSV     = "tradeoff.csv"
	TradeoffParquet = "tradeoff.parquet"
	HostMetricsFile = "hostmetrics.parquet"
	// MonitoringLiveCSV is a live run's accounting of its live sampler
	// (live/monitor.Session).
	MonitoringLiveCSV = "monitoring-live.csv"
)

// TradeoffRow is one row of tradeoff.csv and tradeoff.parquet: one sampler
// at one parameter value on one metric, over the evaluated part of a run
// (after the training part). Metric "all" sums the bytes over the metrics
// and averages their MAPE and missed-peak shares.
type TradeoffRow struct {
	Sampler      string  `parquet:"sampler,dict"`    // fixed, adam, forecast-seasonal, …
	ParamName    string  `parquet:"param_name,dict"` // interval_s, gamma, threshold
	Param        float64 `parquet:"param"`
	Metric       string  `parquet:"metric,dict"`
	SamplesShare float64 `parquet:"samples_share"` // scraped seconds ÷ seconds, 0..1
	BytesShare   float64 `parquet:"bytes_share"`   // bytes transmitted ÷ a 1 s scrape's, 0..1
	MAE          float64 `parquet:"mae"`           // the metric's unit; NaN for "all"
	MAPE         float64 `parquet:"mape"`          // %, over seconds with a non-zero truth
	MissedPeaks  int32   `parquet:"missed_peaks"`  // runs above the peak threshold the reconstruction never shows
	Peaks        int32   `parquet:"peaks"`         // runs above the peak threshold in the truth
}

// HostSample is one row of hostmetrics.parquet, long format: one metric at
// one second (the ground truth the samplers are replayed on, and metric
// "load", the records/s that drives them). df.pivot(index="time_s",
// columns="metric", values="value") makes it wide.
type HostSample struct {
	TimeS  float64 `parquet:"time_s"`
	Metric string  `parquet:"metric,dict"`
	Value  float64 `parquet:"value"`
}

// TradeoffCSVBytes is tradeoff.csv: a header and one line per row (NaN
// empty), readable by pandas and DuckDB as they are.
func TradeoffCSVBytes(rows []TradeoffRow) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"sampler", "param_name", "param", "metric", "samples_share", "bytes_share", "mae", "mape", "missed_peaks", "peaks"})
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range rows {
		w.Write([]string{r.Sampler, r.ParamName, num(r.Param), r.Metric, num(r.SamplesShare), num(r.BytesShare),
			num(r.MAE), num(r.MAPE), strconv.Itoa(int(r.MissedPeaks)), strconv.Itoa(int(r.Peaks))})
	}
	w.Flush()
	return buf.Bytes()
}

// ReadTradeoff loads a tradeoff.parquet.
func ReadTradeoff(path string) ([]TradeoffRow, error) {
	rows, err := parquet.ReadFile[TradeoffRow](path)
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, nil
}

// ReadHostSamples loads a hostmetrics.parquet.
func ReadHostSamples(path string) ([]HostSample, error) {
	rows, err := parquet.ReadFile[HostSample](path)
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, nil
}
