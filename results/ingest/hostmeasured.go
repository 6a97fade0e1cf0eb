package ingest

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

// HostMeasuredColumns are the columns of a measured host-metrics table
// (scenarios/measured/live-host-metrics.csv, `make live-host-profile`): the
// load at 1 s and node-exporter's metrics through Prometheus.
var HostMeasuredColumns = []string{"time_s", "input_rate", "throughput",
	"cpu_pct", "mem_pct", "disk_read_bps", "disk_write_bps", "net_rx_bps", "net_tx_bps"}

// ReadHostMeasured reads a measured host-metrics table into its columns
// (an empty cell is NaN), in file order. Errors name file:line.
func ReadHostMeasured(path string) (map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cols := map[string][]float64{}
	err = ReadCSVTable(path, f, HostMeasuredColumns, []string{"time_s", "throughput"}, func(line int, cells map[string]string) error {
		for name, cell := range cells {
			v := math.NaN()
			if cell != "" {
				var err error
				if v, err = strconv.ParseFloat(cell, 64); err != nil {
					return fmt.Errorf("%s: %q is not a number", name, cell)
				}
			}
			cols[name] = append(cols[name], v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cols, nil
}
