package workloads

import (
	"math"
	"sort"
)

// Schedule is a piecewise-constant input rate: Rates[i] records/s during
// second [i, i+1). Beyond the last second the rate is 0.
type Schedule struct {
	Rates []float64
	cum   []float64 // cum[i] = records arrived by time i
}

// NewSchedule wraps per-second rates (copied).
func NewSchedule(rates []float64) *Schedule {
	s := &Schedule{Rates: append([]float64(nil), rates...), cum: make([]float64, len(rates)+1)}
	for i, r := range s.Rates {
		s.cum[i+1] = s.cum[i] + r
	}
	return s
}

// Duration is the schedule length in seconds.
func (s *Schedule) Duration() float64 { return float64(len(s.Rates)) }

// RateAt is the rate in force at time t.
func (s *Schedule) RateAt(t float64) float64 {
	i := int(math.Floor(t))
	if i < 0 || i >= len(s.Rates) {
		return 0
	}
	return s.Rates[i]
}

// Arrived is the number of records appended by time t.
func (s *Schedule) Arrived(t float64) float64 {
	if t <= 0 {
		return 0
	}
	i := int(math.Floor(t))
	if i >= len(s.Rates) {
		return s.cum[len(s.Rates)]
	}
	return s.cum[i] + s.Rates[i]*(t-float64(i))
}

// ArrivalTime is the time at which the c-th record (counting from 0)
// arrived: the inverse of Arrived. For a backlog it gives the event time of
// the record now being read, hence its queueing delay.
func (s *Schedule) ArrivalTime(c float64) float64 {
	n := len(s.Rates)
	if c <= 0 {
		return 0
	}
	if c >= s.cum[n] {
		return float64(n)
	}
	// first second whose end has reached c
	i := sort.Search(n, func(i int) bool { return s.cum[i+1] >= c })
	if s.Rates[i] == 0 {
		return float64(i)
	}
	return float64(i) + (c-s.cum[i])/s.Rates[i]
}

// Stats summarises the schedule (records/s, records).
type Stats struct {
	Min, Mean, Max, Total float64
}

// Stats returns min, mean, max and total records.
func (s *Schedule) Stats() Stats {
	if len(s.Rates) == 0 {
		return Stats{}
	}
	st := Stats{Min: math.Inf(1), Max: math.Inf(-1), Total: s.cum[len(s.Rates)]}
	for _, r := range s.Rates {
		st.Min, st.Max = math.Min(st.Min, r), math.Max(st.Max, r)
	}
	st.Mean = st.Total / float64(len(s.Rates))
	return st
}
