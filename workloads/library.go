package workloads

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
)

// The embedded traces; provenance and licences in data/LICENSE-NOTES.md.
var (
	//go:embed data/iot_vehicles_21d_5min.csv
	iotCSV []byte
	//go:embed data/ysb_1d_1s.csv
	ysbCSV []byte
)

var twoPercent = 0.02

// Builtin is a named workload.
type Builtin struct {
	Name        string
	Description string
	defaults    Config
	series      func() ([]float64, error)
}

var builtins = []Builtin{
	{Name: "iot-day", Description: "IoT vehicles, one weekday at 1 s: the 21-day trace's traffic curve (floor removed, local time), peaks 07 h and 18 h; Khaos peak 28,000/s, 2 % seeded noise",
		defaults: Config{Peak: 28000, Noise: &twoPercent}, series: func() ([]float64, error) { return iotDay("weekday") }},
	{Name: "iot-weekend", Description: "IoT vehicles, one weekend day on the weekday scale (peak ≈ 30 % of a weekday's)",
		defaults: Config{Noise: &twoPercent}, series: func() ([]float64, error) { return iotWeekendScaled(28000) }},
	{Name: "iot-week", Description: "IoT vehicles, Monday to Sunday: 5 weekdays, 2 weekend days, weekday peak 28,000/s",
		defaults: Config{Peak: 28000, Noise: &twoPercent}, series: iotWeek},
	{Name: "iot-day-daedalus", Description: "IoT vehicles weekday compressed into 6 h and scaled to 100,000/s, as in Daedalus (tm_6h_100K_max)",
		defaults: Config{Peak: 100000, Period: 6 * 3600, Noise: &twoPercent}, series: func() ([]float64, error) { return iotDay("weekday") }},
	{Name: "iot-21d", Description: "IoT vehicles, the whole 21-day message-rate trace (5-min means interpolated to 1 s, floor removed)",
		series: iot21d},
	{Name: "ysb-day", Description: "YSB ad events, the 1-day trace of the Khaos experiments (55,252–91,196/s, mean 69,064/s)",
		series: ysbDay},
	{Name: "ysb-day-daedalus", Description: "YSB day compressed into 6 h and min–max scaled to [0, 400,000]/s (Daedalus advertising_6h_400K_max)",
		defaults: Config{Peak: 400000, Period: 6 * 3600, Scaling: "minmax"}, series: ysbDay},
}

func builtin(name string) (Builtin, bool) {
	for _, b := range builtins {
		if b.Name == name {
			return Builtin{Name: b.Name, Description: b.Description, defaults: b.defaults,
				series: func() ([]float64, error) { return cachedSeries(b.Name, b.series) }}, true
		}
	}
	return Builtin{}, false
}

// Built-in series are parsed from embedded traces once per process and
// shared read-only: a scenario with variants loads its workload once per
// variant, twice (validation, then the schedule).
var (
	seriesMu    sync.Mutex
	seriesCache = map[string][]float64{}
)

func cachedSeries(name string, build func() ([]float64, error)) ([]float64, error) {
	seriesMu.Lock()
	defer seriesMu.Unlock()
	if s, ok := seriesCache[name]; ok {
		return s, nil
	}
	s, err := build()
	if err == nil {
		seriesCache[name] = s
	}
	return s, err
}

// Names lists the built-in workloads.
func Names() []string {
	var out []string
	for _, b := range builtins {
		out = append(out, b.Name)
	}
	sort.Strings(out)
	return out
}

// Builtins returns the built-in workloads with their descriptions.
func Builtins() []Builtin { return append([]Builtin(nil), builtins...) }

var (
	iotOnce  sync.Once
	iotTrace *Trace
	iotErr   error
)

// iotTraffic is the 21-day IoT trace at 5 min with the constant floor
// (≈ 99.4 k msgs/s, the series minimum) removed: what is left is the
// vehicles' daily curve.
func iotTraffic() (*Trace, error) {
	iotOnce.Do(func() {
		iotTrace, iotErr = ParseTrace("iot_vehicles_21d_5min.csv", bytes.NewReader(iotCSV))
		if iotErr != nil {
			return
		}
		floor := math.Inf(1)
		for _, v := range iotTrace.Values {
			floor = math.Min(floor, v)
		}
		for i := range iotTrace.Values {
			iotTrace.Values[i] -= floor
		}
	})
	return iotTrace, iotErr
}

// The trace starts 2019-10-06 22:00 UTC = Monday 2019-10-07 00:00 CEST.
var iotStart = time.Date(2019, 10, 6, 22, 0, 0, 0, time.UTC)
var berlin = time.FixedZone("CEST", 2*3600)

// iotDay averages the trace by 5-minute slot of the local day over all
// weekdays or weekend days, and renders that day at 1 s.
func iotDay(kind string) ([]float64, error) {
	tr, err := iotTraffic()
	if err != nil {
		return nil, err
	}
	const slots = 288
	var sum [slots]float64
	var cnt [slots]int
	for i, t := range tr.Times {
		local := iotStart.Add(time.Duration(t) * time.Second).In(berlin)
		wd := local.Weekday()
		weekend := wd == time.Saturday || wd == time.Sunday
		if weekend != (kind == "weekend") {
			continue
		}
		slot := (local.Hour()*3600 + local.Minute()*60) / 300
		sum[slot] += tr.Values[i]
		cnt[slot]++
	}
	day := &Trace{}
	for s := 0; s < slots; s++ {
		if cnt[s] == 0 {
			return nil, fmt.Errorf("IoT trace has no %s samples for slot %d", kind, s)
		}
		day.Times = append(day.Times, float64(s*300))
		day.Values = append(day.Values, sum[s]/float64(cnt[s]))
	}
	return cyclicPerSecond(day, 86400), nil
}

// cyclicPerSecond interpolates a 5-min day profile to 1 s between slot
// centres, wrapping around midnight so the day joins up with the next.
func cyclicPerSecond(day *Trace, n int) []float64 {
	step := day.Times[1] - day.Times[0]
	m := len(day.Values)
	out := make([]float64, n)
	for i := range out {
		x := (float64(i)+0.5)/step - 0.5
		j := int(math.Floor(x))
		f := x - float64(j)
		a, b := day.Values[(j%m+m)%m], day.Values[((j+1)%m+m)%m]
		out[i] = a + f*(b-a)
	}
	return out
}

// iotWeekdayWeekend returns the weekday and weekend profiles at 1 s, on
// the trace's own scale.
func iotWeekdayWeekend() (wd, we []float64, err error) {
	if wd, err = iotDay("weekday"); err == nil {
		we, err = iotDay("weekend")
	}
	return wd, we, err
}

// iotWeekendScaled is the weekend day on the scale that gives the weekday
// the given peak.
func iotWeekendScaled(weekdayPeak float64) ([]float64, error) {
	wd, we, err := iotWeekdayWeekend()
	if err != nil {
		return nil, err
	}
	k := weekdayPeak / maxOf(wd)
	out := make([]float64, len(we))
	for i, v := range we {
		out[i] = v * k
	}
	return out, nil
}

// iotWeek is Monday to Sunday on the trace's own scale (Peak rescales it).
func iotWeek() ([]float64, error) {
	wd, we, err := iotWeekdayWeekend()
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, 7*86400)
	for d := 0; d < 5; d++ {
		out = append(out, wd...)
	}
	return append(append(out, we...), we...), nil
}

func iot21d() ([]float64, error) {
	tr, err := iotTraffic()
	if err != nil {
		return nil, err
	}
	return tr.PerSecond("linear"), nil
}

func ysbDay() ([]float64, error) {
	tr, err := ParseTrace("ysb_1d_1s.csv", bytes.NewReader(ysbCSV))
	if err != nil {
		return nil, err
	}
	return tr.PerSecond("step"), nil
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// NaturalLength is how long a workload runs by itself (s): a built-in's or
// trace's length (or its period, when compressed); 1 day for shapes.
func NaturalLength(c Config, baseDir string) (float64, error) {
	switch {
	case len(c.Segments) > 0:
		var d float64
		for _, s := range c.Segments {
			d += float64(s.Duration)
		}
		return d, nil
	case c.Name != "" || c.Shape == "trace":
		series, defaults, err := c.series(baseDir)
		if err != nil {
			return 0, err
		}
		if p := defaults.overlay(c).Period; p > 0 {
			return float64(p), nil
		}
		return float64(len(series)), nil
	}
	return 86400, nil
}
