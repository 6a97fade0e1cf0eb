package forecast

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// QuantReg is linear quantile regression on lags: for each fitted level τ,
//
//	q_τ(y[t+1] | y[t], …, y[t−L+1]) = Coef[i][0] + Σ_{l=1..L} Coef[i][l]·y[t+1−l],
//
// fitted once on training data by minimising the pinball loss
// Σ ρ_τ(y[t+1] − x_t·β), ρ_τ(r) = r·(τ − 1{r < 0}), exactly (see
// pinballFit), one fit per level.
//
// Multi-step forecasts (Quantiles): the median model is iterated for a
// path m_1..m_h, starting from the last L points of the history (m_k is the
// median of step k given the history and m_1..m_{k−1} as lags). At step k
// every fitted model is applied to the same lag vector z_k (the median path),
// the one-step quantiles are sorted (Chernozhukov et al.'s rearrangement, so
// quantiles never cross; without crossing this changes nothing) and the
// sorted 0.5 value is m_k. The τ quantile of step k is then
//
//	m_k + f_k·(q_τ(z_k) − m_k),
//
// the one-step spread around the path widened by a factor f_k ≥ 1 (f_1 = 1).
// This is an approximation: it treats the k-step error as the one-step error
// scaled, which is exact for a linear AR with Gaussian location-shift noise
// and otherwise ignores that the k-step error is a sum of one-step errors
// (closer to Gaussian than one of them) and that their spread may depend on
// the lags along the path (the one-step spread is evaluated on the median
// path, not on the spread of paths). The exact alternative, simulating paths
// through the one-step quantile models, is random and hundreds of times
// costlier.
//
// Widening chooses f_k: WidenPsi (the default) takes the ψ-weights of the
// median model's lag polynomial, ψ_0 = 1, ψ_j = Σ_l b_l ψ_{j−l},
// f_k = √(Σ_{j<k} ψ_j²): the growth of the k-step error standard deviation
// of an AR(L) with those coefficients and i.i.d. innovations. For a random
// walk (b = 1) that is √k; for a stationary AR it levels off at the
// marginal spread, where √k would keep growing (√420 ≈ 20 times the one-step
// spread at the end of a 420 s window for a mean-reverting metric).
// WidenSqrtK takes f_k = √k, the i.i.d.-increments rule.
type QuantReg struct {
	Lags   int       // L ≥ 1
	Levels []float64 // fitted levels, strictly increasing in (0, 1), including 0.5
	// Coef[i] is the intercept and the coefficients of lags 1..L of the
	// Levels[i] model (Lags+1 values), in the units of the series.
	Coef  [][]float64
	Widen Widening
}

// Widening is how QuantReg widens one-step quantiles to k steps.
type Widening int

const (
	// WidenPsi widens by √(Σ_{j<k} ψ_j²) of the median model's lags.
	WidenPsi Widening = iota
	// WidenSqrtK widens by √k.
	WidenSqrtK
)

// NewQuantReg fits the quantile regression of y[t+1] on y[t], …, y[t−lags+1]
// and an intercept to train, for each of levels (strictly increasing in
// (0, 1); none: the median only) and for 0.5 (added if absent: the median
// drives the path). Quantiles accepts only the fitted levels. The fit runs on the standardised series ((y − mean)/sd of train;
// the coefficients are mapped back), needs at least 2·(lags+1) + 1 points
// and fails if the lagged design is rank-deficient (e.g. a constant series).
func NewQuantReg(train []float64, lags int, levels []float64) (*QuantReg, error) {
	if lags < 1 {
		return nil, fmt.Errorf("forecast: quantile regression needs ≥ 1 lag, got %d", lags)
	}
	p := lags + 1
	lv := append([]float64(nil), levels...)
	if len(lv) == 0 {
		lv = []float64{0.5}
	}
	if err := checkQuantileArgs(fmt.Sprintf("quantreg(%d) fit", lags), train, 1, lv, lags+2*p); err != nil {
		return nil, err
	}
	if !slices.Contains(lv, 0.5) {
		lv = append(lv, 0.5)
		slices.Sort(lv)
	}
	mean := meanOf(train)
	sd := 0.0
	for _, v := range train {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(len(train)))
	if sd == 0 {
		return nil, errors.New("forecast: quantile regression on a constant series")
	}
	N := len(train) - lags
	X := make([]float64, N*p)
	y := make([]float64, N)
	for r := range N {
		t := r + lags - 1 // predicts train[t+1] from train[t..t−lags+1]
		y[r] = (train[t+1] - mean) / sd
		X[r*p] = 1
		for l := 1; l <= lags; l++ {
			X[r*p+l] = (train[t+1-l] - mean) / sd
		}
	}
	q := &QuantReg{Lags: lags, Levels: lv, Coef: make([][]float64, len(lv))}
	for i, tau := range lv {
		beta, err := pinballFit(X, y, p, tau)
		if err != nil {
			return nil, fmt.Errorf("forecast: quantreg(%d) at level %v: %w", lags, tau, err)
		}
		// (y' − m)/s = c + Σ b_l (y_l − m)/s  ⇒  y' = m(1 − Σ b_l) + s·c + Σ b_l y_l.
		c := make([]float64, p)
		sum := 0.0
		for l := 1; l <= lags; l++ {
			c[l] = beta[l]
			sum += beta[l]
		}
		c[0] = mean*(1-sum) + sd*beta[0]
		q.Coef[i] = c
	}
	return q, nil
}

// Name is "quantreg(L)".
func (q *QuantReg) Name() string { return fmt.Sprintf("quantreg(%d)", q.Lags) }

func (q *QuantReg) validate() (median int, err error) {
	if q.Lags < 1 || len(q.Coef) != len(q.Levels) {
		return 0, fmt.Errorf("forecast: %s: %d lags, %d coefficient sets for %d levels", q.Name(), q.Lags, len(q.Coef), len(q.Levels))
	}
	median = -1
	for i, l := range q.Levels {
		if len(q.Coef[i]) != q.Lags+1 {
			return 0, fmt.Errorf("forecast: %s: level %v has %d coefficients, want %d", q.Name(), l, len(q.Coef[i]), q.Lags+1)
		}
		if i > 0 && !(l > q.Levels[i-1]) {
			return 0, fmt.Errorf("forecast: %s: fitted levels not strictly increasing", q.Name())
		}
		if l == 0.5 {
			median = i
		}
	}
	if median < 0 {
		return 0, fmt.Errorf("forecast: %s: no median (0.5) model", q.Name())
	}
	if q.Widen != WidenPsi && q.Widen != WidenSqrtK {
		return 0, fmt.Errorf("forecast: %s: unknown widening %d", q.Name(), q.Widen)
	}
	return median, nil
}

// Quantiles implements Quantiler (see the type's comment for the scheme);
// the history needs at least Lags points and every level must be one of
// Levels (within 1e-12).
func (q *QuantReg) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	median, err := q.validate()
	if err != nil {
		return nil, err
	}
	if err := checkQuantileArgs(q.Name(), history, h, levels, q.Lags); err != nil {
		return nil, err
	}
	which := make([]int, len(levels))
	for i, l := range levels {
		which[i] = slices.IndexFunc(q.Levels, func(f float64) bool { return math.Abs(f-l) <= 1e-12 })
		if which[i] < 0 {
			return nil, fmt.Errorf("forecast: %s: level %v was not fitted (fitted: %v)", q.Name(), l, q.Levels)
		}
	}
	L, n := q.Lags, len(history)
	f := q.widening(h, median)
	path := make([]float64, L+h)
	copy(path, history[n-L:])
	vals := make([]float64, len(q.Levels))
	out := newQuantileRows(len(levels), h)
	for k := range h {
		// lag l of step k+1 is path[L+k−l].
		for i, c := range q.Coef {
			v := c[0]
			for l := 1; l <= L; l++ {
				v += c[l] * path[L+k-l]
			}
			vals[i] = v
		}
		sortSmall(vals)
		m := vals[median]
		path[L+k] = m
		for i, w := range which {
			out[i][k] = m + f[k]*(vals[w]-m)
		}
	}
	return out, nil
}

// widening returns f_1..f_h (index k−1).
func (q *QuantReg) widening(h, median int) []float64 {
	f := make([]float64, h)
	if q.Widen == WidenSqrtK {
		for k := range h {
			f[k] = math.Sqrt(float64(k + 1))
		}
		return f
	}
	b := q.Coef[median][1:]
	psi := make([]float64, h)
	acc := 0.0
	for j := range h {
		v := 1.0
		if j > 0 {
			v = 0
			for l := 1; l <= min(j, len(b)); l++ {
				v += b[l-1] * psi[j-l]
			}
		}
		psi[j] = v
		acc += v * v
		f[j] = math.Sqrt(acc)
	}
	return f
}

// sortSmall is an insertion sort, for the few one-step quantiles of a step.
func sortSmall(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// pinballFit returns β minimising Σ_i ρ_τ(y_i − x_i·β) over the N rows x_i
// of the row-major N×p matrix X. It solves the linear program exactly, by
// the primal simplex on the vertices of the loss (Barrodale and Roberts'
// method; Koenker, Quantile Regression, 2005, §6.2): a vertex is a basis h
// of p rows with zero residual (β = X_h⁻¹ y_h); an edge releases one basic
// row j in direction ±X_h⁻¹e_j; the step along the steepest descending edge
// goes to the weighted median of the breakpoints where residuals change
// sign, whose row enters the basis. The loss decreases strictly at each
// step, so the method ends at a vertex where no edge descends, which is a
// global optimum (the loss is convex and the edges span every direction of
// descent at a vertex: Koenker's optimality condition −τ ≤ z_j ≤ 1 − τ).
// The start is the vertex of the p rows with the smallest least-squares
// residuals that are linearly independent.
func pinballFit(X, y []float64, p int, tau float64) ([]float64, error) {
	N := len(y)
	if N < p {
		return nil, fmt.Errorf("%d rows for %d coefficients", N, p)
	}
	basis, err := startBasis(X, y, p)
	if err != nil {
		return nil, err
	}
	s := newSimplex(X, y, p, tau, basis)
	maxIter := 1000 + 20*N
	for range maxIter {
		if err := s.solveVertex(); err != nil {
			return nil, err
		}
		slope, j, sign := s.steepestEdge()
		if j < 0 {
			return s.beta, nil
		}
		enter := s.lineSearch(slope, j, sign)
		if enter < 0 {
			return nil, errors.New("pinball loss unbounded below (rank-deficient design?)")
		}
		s.pivot(j, enter)
	}
	return nil, fmt.Errorf("no optimum after %d simplex steps", maxIter)
}

// simplex is pinballFit's state: the design, the basis, and at the
// basis's vertex the coefficients, the residuals and the edges.
type simplex struct {
	X, y []float64
	p    int
	tau  float64
	// zeroTol is the residual that counts as 0; descentTol the
	// directional derivative that counts as descending (its negative).
	zeroTol, descentTol float64
	basis               []int
	inBasis             []bool
	beta                []float64
	r                   []float64 // residual per row (0 for the basis)
	A                   []float64 // A[i*p+j] = x_i · C[:, j], C = X_h⁻¹
	xh                  *mat.Dense
	C                   mat.Dense
	brks                []breakpoint
}

// breakpoint is where row i's residual changes sign along an edge, at step
// t, and the slope grows by w there.
type breakpoint struct {
	t, w float64
	i    int
}

func newSimplex(X, y []float64, p int, tau float64, basis []int) *simplex {
	N := len(y)
	scale := 0.0
	for _, v := range y {
		scale = math.Max(scale, math.Abs(v))
	}
	s := &simplex{X: X, y: y, p: p, tau: tau,
		zeroTol: 1e-11 * (1 + scale), descentTol: 1e-10 * float64(N),
		basis: basis, inBasis: make([]bool, N),
		beta: make([]float64, p), r: make([]float64, N), A: make([]float64, N*p),
		xh: mat.NewDense(p, p, nil)}
	for _, i := range basis {
		s.inBasis[i] = true
	}
	return s
}

func (s *simplex) row(i int) []float64 { return s.X[i*s.p : (i+1)*s.p] }

// solveVertex solves the basis's rows exactly (β = X_h⁻¹ y_h) and sets the
// other rows' residuals and edge directions.
func (s *simplex) solveVertex() error {
	p, y, beta := s.p, s.y, s.beta
	for a, i := range s.basis {
		s.xh.SetRow(a, s.row(i))
	}
	if err := s.C.Inverse(s.xh); err != nil {
		return fmt.Errorf("singular basis: %w", err)
	}
	cm := s.C.RawMatrix()
	c, cs := cm.Data, cm.Stride
	for j := range p {
		v := 0.0
		for a, i := range s.basis {
			v += c[j*cs+a] * y[i]
		}
		beta[j] = v
	}
	for i := range len(y) {
		if s.inBasis[i] {
			s.r[i] = 0
			continue
		}
		xi := s.row(i)
		v := y[i]
		for j, b := range beta {
			v -= xi[j] * b
		}
		s.r[i] = v
		ai := s.A[i*p : (i+1)*p]
		clear(ai)
		for l, x := range xi {
			cl := c[l*cs : l*cs+p]
			for j := range ai {
				ai[j] += x * cl[j]
			}
		}
	}
	return nil
}

// steepestEdge returns the steepest descending edge, releasing basic row j
// in direction sign·C[:, j], and the loss's slope along it; j is −1 where
// no edge descends (the optimum).
func (s *simplex) steepestEdge() (slope float64, j int, sign float64) {
	tau, p := s.tau, s.p
	// Directional derivatives of the loss along ±C[:, j].
	bestD, bestJ, bestS := -s.descentTol, -1, 0.0
	for j := range p {
		dPlus, dMinus := 1-tau, tau // the released row's residual becomes ∓t
		for i, r := range s.r {
			if s.inBasis[i] {
				continue
			}
			a := s.A[i*p+j]
			switch {
			case r > s.zeroTol:
				dPlus -= tau * a
				dMinus += tau * a
			case r < -s.zeroTol:
				dPlus -= (tau - 1) * a
				dMinus += (tau - 1) * a
			default: // residual 0 becomes −t·(±a): it only adds
				dPlus += zeroSlope(a, tau)
				dMinus += zeroSlope(-a, tau)
			}
		}
		if dPlus < bestD {
			bestD, bestJ, bestS = dPlus, j, 1
		}
		if dMinus < bestD {
			bestD, bestJ, bestS = dMinus, j, -1
		}
	}
	return bestD, bestJ, bestS
}

// lineSearch steps along the edge (j, sign), whose slope starts at slope,
// to the weighted median of the breakpoints, and returns the row whose
// residual reaches 0 there (−1: the loss falls without bound).
func (s *simplex) lineSearch(slope float64, j int, sign float64) int {
	// Residual i moves as r_i − t·g_i; it crosses zero at t = r_i/g_i,
	// where the slope grows by |g_i|.
	s.brks = s.brks[:0]
	for i, r := range s.r {
		if s.inBasis[i] || math.Abs(r) <= s.zeroTol {
			continue
		}
		g := sign * s.A[i*s.p+j]
		if g != 0 && (r > 0) == (g > 0) {
			s.brks = append(s.brks, breakpoint{r / g, math.Abs(g), i})
		}
	}
	brks := s.brks
	sort.Slice(brks, func(a, b int) bool {
		if brks[a].t != brks[b].t {
			return brks[a].t < brks[b].t
		}
		return brks[a].i < brks[b].i
	})
	for _, b := range brks {
		slope += b.w
		if slope >= 0 {
			return b.i
		}
	}
	return -1
}

// pivot replaces basic row j with row enter.
func (s *simplex) pivot(j, enter int) {
	s.inBasis[s.basis[j]] = false
	s.basis[j] = enter
	s.inBasis[enter] = true
}

// zeroSlope is the slope of ρ_τ(−t·u) at t = 0+.
func zeroSlope(u, tau float64) float64 {
	if u > 0 {
		return (1 - tau) * u
	}
	return -tau * u
}

// startBasis picks p linearly independent rows of X in the order of their
// absolute least-squares residuals (Gram–Schmidt with a relative tolerance).
func startBasis(X, y []float64, p int) ([]int, error) {
	N := len(y)
	Xm := mat.NewDense(N, p, X)
	var b mat.VecDense
	if err := b.SolveVec(Xm, mat.NewVecDense(N, y)); err != nil {
		return nil, fmt.Errorf("rank-deficient design: %w", err)
	}
	res := make([]float64, N)
	idx := make([]int, N)
	for i := range N {
		v := y[i]
		for j := range p {
			v -= X[i*p+j] * b.AtVec(j)
		}
		res[i] = math.Abs(v)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, c int) bool { return res[idx[a]] < res[idx[c]] })
	var basis []int
	var ortho [][]float64 // orthonormal rows chosen so far
	for _, i := range idx {
		v := append([]float64(nil), X[i*p:(i+1)*p]...)
		norm0 := math.Sqrt(dot(v, v))
		if norm0 == 0 {
			continue
		}
		for _, u := range ortho {
			c := dot(v, u)
			for k := range v {
				v[k] -= c * u[k]
			}
		}
		norm := math.Sqrt(dot(v, v))
		if norm <= 1e-8*norm0 {
			continue
		}
		for k := range v {
			v[k] /= norm
		}
		ortho = append(ortho, v)
		basis = append(basis, i)
		if len(basis) == p {
			return basis, nil
		}
	}
	return nil, errors.New("rank-deficient design")
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
