package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Seeds derives independent, named random streams from one root seed, so that
// adding a consumer of randomness never shifts the numbers another one sees.
type Seeds struct{ Root uint64 }

// Stream returns a fresh generator for the named component. The same root and
// name always give the same sequence.
func (s Seeds) Stream(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(s.Root, h.Sum64()))
}
