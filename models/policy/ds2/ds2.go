package ds2

import (
	"fmt"
	"math"
)

// Operator is one node of the dataflow as DS2 measures it. Rates are
// aggregated over the operator's instances, in records/s of useful time.
type Operator struct {
	Name               string
	Inputs             []int   // indices of upstream operators (none: a source)
	Parallelism        int     // p_i
	TrueProcessingRate float64 // λ_p[i]
	TrueOutputRate     float64 // λ_o[i]
	// TargetRate is a source's external input rate to sustain (λ̂ of its
	// input); ignored for other operators.
	TargetRate float64
}

// Parallelisms is DS2's scaling policy: in topological order (inputs
// before an operator), π*_i = (1 + factor) · Σ_{j ∈ inputs(i)} λ̂_o[j] /
// (λ_p[i] / p_i) and π_i = ⌈π*_i⌉, a source's input being its TargetRate,
// and λ̂_o[i] = λ_o[i] · π*_i / p_i (linear, no skew). The output
// propagates the optimum before rounding up: λ_o/λ_p is the operator's
// selectivity, so λ̂_o is its input times its selectivity, where the
// rounded π_i would pass each operator's spare capacity downstream as if it
// were load (at low load every operator would look saturated). factor is
// scaling_factor (0 by default).
func Parallelisms(ops []Operator, factor float64) ([]int, error) {
	out := make([]int, len(ops))
	optOut := make([]float64, len(ops))
	for i, op := range ops {
		if op.Parallelism < 1 || !(op.TrueProcessingRate > 0) {
			return nil, fmt.Errorf("ds2: operator %q needs a parallelism ≥ 1 and a positive true processing rate, got %d and %g", op.Name, op.Parallelism, op.TrueProcessingRate)
		}
		in := op.TargetRate
		if len(op.Inputs) > 0 {
			in = 0
			for _, j := range op.Inputs {
				if j >= i {
					return nil, fmt.Errorf("ds2: operator %q reads operator %d, which does not come before it", op.Name, j)
				}
				in += optOut[j]
			}
		}
		perInstance := op.TrueProcessingRate / float64(op.Parallelism)
		opt := (1 + factor) * in / perInstance
		out[i] = max(1, int(math.Ceil(opt-1e-9)))
		optOut[i] = op.TrueOutputRate * opt / float64(op.Parallelism)
	}
	return out, nil
}
