package khaos

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Sample is one profiled failure: the pre-failure 300 s means and what the
// failure cost (Khaos's FailureMetrics row).
type Sample struct {
	CheckpointIntervalS float64 `json:"checkpoint_interval_s"`
	FaultAtS            float64 `json:"fault_at_s"`
	Throughput          float64 `json:"throughput"` // records/s
	LatencyMs           float64 `json:"latency_ms"`
	RecoveryS           float64 `json:"recovery_s"`
}

// Linear is an OLS model y = Intercept + Throughput·thr + CIms·ci, in
// Khaos's units: thr in records/s, the CI in milliseconds.
type Linear struct {
	Intercept  float64 `json:"intercept"`
	Throughput float64 `json:"throughput"`
	CIms       float64 `json:"ci_ms"`
	R2         float64 `json:"r2"`
	AdjR2      float64 `json:"adj_r2"`
	// Accuracy is Khaos's: 1 − mean(|measured − predicted| / measured).
	Accuracy float64 `json:"accuracy"`
	N        int     `json:"n"`
}

// Predict evaluates the model at throughput thr (records/s) and CI ciS (s).
func (l Linear) Predict(thr, ciS float64) float64 {
	return l.Intercept + l.Throughput*thr + l.CIms*1000*ciS
}

// FitLinear fits y ~ thr + CI by ordinary least squares (QR), as Khaos's
// RegressionModel does with Smile's OLS.
func FitLinear(thr, ciS, y []float64) (Linear, error) {
	n := len(y)
	if n < 4 {
		return Linear{}, fmt.Errorf("a linear model of throughput and CI needs at least 4 samples, got %d", n)
	}
	x := mat.NewDense(n, 3, nil)
	for i := range y {
		x.Set(i, 0, 1)
		x.Set(i, 1, thr[i])
		x.Set(i, 2, 1000*ciS[i])
	}
	var qr mat.QR
	qr.Factorize(x)
	var beta mat.Dense
	if err := qr.SolveTo(&beta, false, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		return Linear{}, fmt.Errorf("throughput and CI are collinear in the samples (profile more CIs or load levels): %w", err)
	}
	l := Linear{Intercept: beta.At(0, 0), Throughput: beta.At(1, 0), CIms: beta.At(2, 0), N: n}
	pred := make([]float64, n)
	for i := range y {
		pred[i] = l.Predict(thr[i], ciS[i])
	}
	l.R2 = rSquared(y, pred)
	l.AdjR2 = 1 - (1-l.R2)*float64(n-1)/float64(n-3)
	l.Accuracy = Accuracy(y, pred)
	return l, nil
}

// Physics is the recovery model that follows the mechanism: a failure 3 s
// before a checkpoint loses CI − 3 s of progress, the job is down for
// Downtime, and the backlog λ·(CI − 3 + D) drains at the spare capacity
// μ − λ: rec = D + λ·(CI − Before + D)/(μ − λ).
type Physics struct {
	DowntimeS float64 `json:"downtime_s"`
	Capacity  float64 `json:"capacity"` // records/s while catching up
	BeforeS   float64 `json:"before_checkpoint_s"`
	Accuracy  float64 `json:"accuracy"`
	N         int     `json:"n"`
}

// Predict is the recovery time (s) at throughput thr and CI ciS; +Inf when
// the load reaches the capacity (the backlog never drains).
func (p Physics) Predict(thr, ciS float64) float64 {
	spare := p.Capacity - thr
	if spare <= 0 {
		return math.Inf(1)
	}
	lost := math.Max(0, ciS-p.BeforeS) + p.DowntimeS
	return p.DowntimeS + thr*lost/spare
}

// FitPhysics fits downtime and capacity by least squares on the relative
// error (Nelder–Mead, capacity kept above the largest throughput seen).
func FitPhysics(thr, ciS, rec []float64, before float64) (Physics, error) {
	n := len(rec)
	if n < 3 {
		return Physics{}, fmt.Errorf("the recovery model needs at least 3 samples, got %d", n)
	}
	maxThr := 0.0
	for _, x := range thr {
		maxThr = math.Max(maxThr, x)
	}
	// x[0] = log downtime, x[1] = log(capacity − maxThr): both stay valid
	model := func(x []float64) Physics {
		return Physics{DowntimeS: math.Exp(x[0]), Capacity: maxThr + math.Exp(x[1]), BeforeS: before, N: n}
	}
	loss := func(x []float64) float64 {
		m := model(x)
		s := 0.0
		for i := range rec {
			d := (m.Predict(thr[i], ciS[i]) - rec[i]) / rec[i]
			s += d * d
		}
		return s
	}
	res, err := optimize.Minimize(optimize.Problem{Func: loss}, []float64{math.Log(20), math.Log(maxThr)}, nil, &optimize.NelderMead{})
	if err != nil && res == nil {
		return Physics{}, err
	}
	m := model(res.X)
	pred := make([]float64, n)
	for i := range rec {
		pred[i] = m.Predict(thr[i], ciS[i])
	}
	m.Accuracy = Accuracy(rec, pred)
	return m, nil
}

// Models are what profiling learns and the optimiser uses.
type Models struct {
	Latency  Linear   `json:"latency"`
	Recovery Linear   `json:"recovery"`
	Physics  *Physics `json:"physics,omitempty"`
	// MinRecoveryS is the sample filter: failures recovering faster are
	// detector misses in Khaos (55 s) and stay out of the recovery model.
	MinRecoveryS float64 `json:"min_recovery_s"`
}

// FitModels fits the two OLS models (and the physical recovery model) to
// profiled failures, dropping recoveries of at most minRec from the
// recovery models.
func FitModels(samples []Sample, minRec, before float64) (Models, error) {
	var thr, ci, lat []float64
	var rthr, rci, rec []float64
	for _, s := range samples {
		if !math.IsNaN(s.LatencyMs) {
			thr, ci, lat = append(thr, s.Throughput), append(ci, s.CheckpointIntervalS), append(lat, s.LatencyMs)
		}
		if s.RecoveryS > minRec && !math.IsInf(s.RecoveryS, 0) && !math.IsNaN(s.RecoveryS) {
			rthr, rci, rec = append(rthr, s.Throughput), append(rci, s.CheckpointIntervalS), append(rec, s.RecoveryS)
		}
	}
	m := Models{MinRecoveryS: minRec}
	var err error
	if m.Latency, err = FitLinear(thr, ci, lat); err != nil {
		return Models{}, fmt.Errorf("latency model: %w", err)
	}
	if m.Recovery, err = FitLinear(rthr, rci, rec); err != nil {
		return Models{}, fmt.Errorf("recovery model (samples with recovery > %g s): %w", minRec, err)
	}
	ph, err := FitPhysics(rthr, rci, rec, before)
	if err != nil {
		return Models{}, fmt.Errorf("physical recovery model: %w", err)
	}
	m.Physics = &ph
	return m, nil
}

// Validate checks that models loaded from a file can drive the optimiser.
func (m Models) Validate() error {
	if m.Latency.N == 0 && m.Latency.Intercept == 0 && m.Latency.Throughput == 0 && m.Latency.CIms == 0 {
		return errors.New("the latency model is empty (profile first: streamtwin profile SCENARIO)")
	}
	if m.Recovery.N == 0 && m.Recovery.Intercept == 0 && m.Recovery.Throughput == 0 && m.Recovery.CIms == 0 {
		return errors.New("the recovery model is empty (profile first: streamtwin profile SCENARIO)")
	}
	return nil
}

// Accuracy is Khaos's accuracy: 1 − mean(|measured − predicted|/measured).
func Accuracy(measured, predicted []float64) float64 {
	if len(measured) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, m := range measured {
		s += math.Abs(m-predicted[i]) / m
	}
	return 1 - s/float64(len(measured))
}

func rSquared(y, pred []float64) float64 {
	mean := 0.0
	for _, v := range y {
		mean += v / float64(len(y))
	}
	var res, tot float64
	for i, v := range y {
		res += (v - pred[i]) * (v - pred[i])
		tot += (v - mean) * (v - mean)
	}
	if tot == 0 {
		return math.NaN()
	}
	return 1 - res/tot
}

// CrossValidation compares the OLS and the physical recovery model on
// failures they were not fitted on: each profiled CI in turn is left out,
// both models are fitted on the others and predict its failures.
type CrossValidation struct {
	OLSAccuracy     float64 `json:"ols_accuracy"`
	PhysicsAccuracy float64 `json:"physics_accuracy"`
	Better          string  `json:"better"` // "ols" or "physics"
	Folds           int     `json:"folds"`
	N               int     `json:"n"`
}

// CrossValidate runs the leave-one-CI-out comparison.
func CrossValidate(samples []Sample, minRec, before float64) (CrossValidation, error) {
	var cis []float64
	seen := map[float64]bool{}
	for _, s := range samples {
		if !seen[s.CheckpointIntervalS] {
			seen[s.CheckpointIntervalS] = true
			cis = append(cis, s.CheckpointIntervalS)
		}
	}
	if len(cis) < 3 {
		return CrossValidation{}, fmt.Errorf("cross-validation needs at least 3 profiled CIs, got %d", len(cis))
	}
	var measured, ols, phys []float64
	for _, held := range cis {
		var train, test []Sample
		for _, s := range samples {
			if s.RecoveryS <= minRec {
				continue
			}
			if s.CheckpointIntervalS == held {
				test = append(test, s)
			} else {
				train = append(train, s)
			}
		}
		var thr, ci, rec []float64
		for _, s := range train {
			thr, ci, rec = append(thr, s.Throughput), append(ci, s.CheckpointIntervalS), append(rec, s.RecoveryS)
		}
		lin, err := FitLinear(thr, ci, rec)
		if err != nil {
			return CrossValidation{}, err
		}
		ph, err := FitPhysics(thr, ci, rec, before)
		if err != nil {
			return CrossValidation{}, err
		}
		for _, s := range test {
			measured = append(measured, s.RecoveryS)
			ols = append(ols, lin.Predict(s.Throughput, s.CheckpointIntervalS))
			p := ph.Predict(s.Throughput, s.CheckpointIntervalS)
			if math.IsInf(p, 1) {
				p = 10 * s.RecoveryS // beyond its capacity: a large, finite miss
			}
			phys = append(phys, p)
		}
	}
	cv := CrossValidation{OLSAccuracy: Accuracy(measured, ols), PhysicsAccuracy: Accuracy(measured, phys), Folds: len(cis), N: len(measured)}
	cv.Better = "ols"
	if cv.PhysicsAccuracy > cv.OLSAccuracy {
		cv.Better = "physics"
	}
	return cv, nil
}
